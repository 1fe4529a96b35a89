extension Array {
    /// The places of the elements in order of `time`, equal times in the order the elements
    /// stand: a stable sort that moves 8-byte places, not the elements paired with their places
    /// (a list of the pairs and a sorted copy of it were 44 MB at 400,000 waiting fixes, stop 52).
    /// `time` must be finite, so the order is total and the sort's own order does not matter.
    func stableOrder(byTime time: (Element) -> Double) -> [Int] {
        var order = Swift.Array(indices)
        order.sort { a, b in (time(self[a]), a) < (time(self[b]), b) }
        return order
    }

    /// The elements in `stableOrder(byTime:)`.
    func sortedStably(byTime time: (Element) -> Double) -> [Element] {
        stableOrder(byTime: time).map { self[$0] }
    }
}
