import BGeoReader

/// A min-priority queue for values that mostly arrive in order (a dump's rows are nearly in time
/// order): a value whose key sorts at or after the last in-order arrival is appended to a sorted
/// run (a ring buffer: O(1), no comparison chain); only the others go to a heap of keys beside
/// slots, so sifting moves a key and an index, never a value with strings inside. The smallest is
/// the smaller of the run's head and the heap's top. Values with equal keys leave in no
/// particular order (every key the trace uses is unique).
struct RunQueue<Key: Comparable, Value> {
    /// The sorted run: keys and values in two rings (reading the smallest key touches no value).
    private var runKeys: [Key?]
    private var runValues: [Value?]
    private var runHead = 0
    private var runCount = 0
    private var runMask: Int
    private var lastInOrder: Key?
    private var heap = MinHeap<KeyedSlotOrder<Key>>()
    private var slots: [Value?] = []
    private var freeSlots: [Int] = []

    init(capacity: Int = 64) {
        var size = 16
        while size < capacity { size <<= 1 }
        runKeys = [Key?](repeating: nil, count: size)
        runValues = [Value?](repeating: nil, count: size)
        runMask = size - 1
    }

    var count: Int { runCount + heap.count }
    var isEmpty: Bool { runCount == 0 && heap.isEmpty }

    /// The smallest key, if any.
    var minKey: Key? {
        if runCount > 0 {
            let runKey = runKeys[runHead].unsafelyUnwrapped
            if let top = heap.top, top.key < runKey { return top.key }
            return runKey
        }
        return heap.top?.key
    }

    mutating func push(_ value: consuming Value, key: Key) {
        if runCount == 0 || !(key < lastInOrder.unsafelyUnwrapped) {
            if runCount == runKeys.count { growRun() }
            let i = (runHead + runCount) & runMask
            runKeys[i] = key
            runValues[i] = value
            runCount += 1
            lastInOrder = key
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = value
        } else {
            slot = slots.count
            slots.append(value)
        }
        heap.push(KeyedSlot(key: key, slot: slot))
    }

    /// Removes and returns the smallest value and its key (the queue must not be empty).
    mutating func pop() -> (key: Key, value: Value) {
        if runCount > 0, heap.isEmpty || !(heap.top.unsafelyUnwrapped.key < runKeys[runHead].unsafelyUnwrapped) {
            let key = runKeys[runHead].unsafelyUnwrapped
            let value = runValues[runHead].take().unsafelyUnwrapped
            runHead = (runHead + 1) & runMask
            runCount -= 1
            return (key, value)
        }
        let smallest = heap.pop()
        let value = slots[smallest.slot].take().unsafelyUnwrapped
        freeSlots.append(smallest.slot)
        return (smallest.key, value)
    }

    private mutating func growRun() {
        let size = runKeys.count * 2
        var keys = [Key?](repeating: nil, count: size)
        var values = [Value?](repeating: nil, count: size)
        for i in 0..<runCount {
            let j = (runHead + i) & runMask
            keys[i] = runKeys[j]
            values[i] = runValues[j].take()
        }
        runKeys = keys
        runValues = values
        runHead = 0
        runMask = size - 1
    }
}

/// A key in a `RunQueue`'s heap, and the slot holding its value.
struct KeyedSlot<Key> {
    let key: Key
    let slot: Int
}

/// Heap entries by key.
enum KeyedSlotOrder<Key: Comparable>: HeapOrder {
    @inline(__always) static func before(_ a: KeyedSlot<Key>, _ b: KeyedSlot<Key>) -> Bool { a.key < b.key }
}
