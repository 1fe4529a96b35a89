import BGeoReader

/// The order of the complete trace (replay-semantics.md: "in timestamp order, ties by row id"):
/// by time; fixes with the very same time in `Fix.tieOrder`. `tieOrder` compares queue rows with
/// queue rows and log rows with log rows, so among three or more tied fixes of mixed origin it
/// need not be transitive: a tie group is therefore always ordered by one fixed procedure — a
/// stable merge sort starting from the order the fixes were gathered in (`TraceRank`) — so the
/// in-memory builder and the streamed one agree on every input. Wherever `tieOrder` is a proper
/// order on the group (every dump seen), that is simply the sorted order.
enum TraceOrder {
    /// Sorts fixes given in gathering order into trace order.
    static func sort(_ fixes: inout [Fix]) {
        let inTimeOrder = zip(fixes.indices.dropLast(), fixes.indices.dropFirst()).allSatisfy { fixes[$0].time <= fixes[$1].time }
        if !inTimeOrder {
            fixes = fixes.enumerated().sorted { a, b in
                a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
            }.map(\.element)
        }
        var start = 0
        while start < fixes.count {
            var end = start + 1
            while end < fixes.count, fixes[end].time == fixes[start].time { end += 1 }
            if end - start > 1 { arrangeTies(&fixes[start..<end]) }
            start = end
        }
    }

    /// Orders fixes that share one time by `Fix.tieOrder`: a top-down merge sort that takes the
    /// left element unless the right one is strictly before it.
    static func arrangeTies(_ group: inout ArraySlice<Fix>) {
        guard group.count > 1 else { return }
        if group.count == 2 {
            // The sort's one merge, in place: most tie groups are a pair (no arrays copied).
            let first = group.startIndex
            if Fix.tieOrder(group[first + 1], group[first]) { group.swapAt(first, first + 1) }
            return
        }
        var items = Array(group)
        var buffer = items
        mergeSort(&items, &buffer, 0, items.count)
        group.replaceSubrange(group.startIndex..<group.endIndex, with: items)
    }

    private static func mergeSort(_ items: inout [Fix], _ buffer: inout [Fix], _ low: Int, _ high: Int) {
        guard high - low > 1 else { return }
        let middle = (low + high) / 2
        mergeSort(&items, &buffer, low, middle)
        mergeSort(&items, &buffer, middle, high)
        var left = low, right = middle, out = low
        while left < middle, right < high {
            if Fix.tieOrder(items[right], items[left]) {
                buffer[out] = items[right]
                right += 1
            } else {
                buffer[out] = items[left]
                left += 1
            }
            out += 1
        }
        while left < middle { buffer[out] = items[left]; left += 1; out += 1 }
        while right < high { buffer[out] = items[right]; right += 1; out += 1 }
        for i in low..<high { items[i] = buffer[i] }
    }
}
