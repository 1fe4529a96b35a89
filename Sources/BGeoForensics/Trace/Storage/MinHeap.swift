import BGeoReader

/// How a `MinHeap` orders its elements (a type, not a closure, so the comparison is inlined in the
/// hot loops that sort a million records).
protocol HeapOrder {
    associatedtype Element
    static func before(_ a: Element, _ b: Element) -> Bool
}

/// A binary min-heap: the reorder window of a spool, the fixes waiting for their millisecond.
struct MinHeap<Order: HeapOrder> {
    private var items: [Order.Element] = []

    init(capacity: Int = 0) { items.reserveCapacity(capacity) }

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
    var top: Order.Element? { items.first }

    mutating func push(_ item: Order.Element) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Order.before(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the smallest element (the heap must not be empty).
    mutating func pop() -> Order.Element {
        let last = items.count - 1
        items.swapAt(0, last)
        let top = items.removeLast()
        var parent = 0
        let n = items.count
        while true {
            let left = 2 * parent + 1
            guard left < n else { break }
            var smallest = left
            if left + 1 < n, Order.before(items[left + 1], items[left]) { smallest = left + 1 }
            guard Order.before(items[smallest], items[parent]) else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
