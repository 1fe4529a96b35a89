extension RandomAccessCollection {
    /// The index of the first element for which `isBefore` is false, in a collection where every
    /// element it is true for comes first (a binary search: the coverage map's stretches and the
    /// gaps' marks are kept in order and searched per fix and per gap).
    @inline(__always)
    func partitionPoint(where isBefore: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let mid = index(low, offsetBy: half)
            if isBefore(self[mid]) {
                low = index(after: mid)
                count -= half + 1
            } else {
                count = half
            }
        }
        return low
    }
}
