/// The stretches of time covered by fixes, built one fix at a time in any order. Fixes closer
/// than `threshold` join the same stretch, so memory grows with the number of gaps, not the
/// number of fixes (a million fixes with no gap is one interval).
struct CoverageMap: Sendable {
    struct Interval: Sendable, Equatable {
        var start: Double
        var end: Double
        /// Whether the fix at `end` (the newest of the stretch) was moving.
        var movingAtEnd: Bool?
        var fixes: Int
    }

    let threshold: Double
    private(set) var intervals: [Interval] = []
    private(set) var fixCount = 0

    init(threshold: Double) { self.threshold = threshold }

    /// Adds one fix at `time`. `moving` is the fix's own motion state.
    mutating func add(_ time: Double, moving: Bool?) {
        guard time.isFinite else { return }
        fixCount += 1
        // Fast path: fixes arrive nearly in order.
        if let last = intervals.last {
            if time >= last.end {
                if time - last.end >= threshold {
                    intervals.append(Interval(start: time, end: time, movingAtEnd: moving, fixes: 1))
                } else {
                    extend(intervals.count - 1, time, moving)
                }
                return
            }
            if time >= last.start {
                extend(intervals.count - 1, time, moving)
                return
            }
        }
        if intervals.isEmpty {
            intervals.append(Interval(start: time, end: time, movingAtEnd: moving, fixes: 1))
            return
        }
        // General case: find the first interval whose end + threshold exceeds time.
        var low = 0
        var high = intervals.count
        while low < high {
            let mid = (low + high) / 2
            if intervals[mid].end + threshold <= time { low = mid + 1 } else { high = mid }
        }
        if low < intervals.count, time > intervals[low].start - threshold {
            extend(low, time, moving)
        } else {
            intervals.insert(Interval(start: time, end: time, movingAtEnd: moving, fixes: 1), at: low)
        }
    }

    private mutating func extend(_ index: Int, _ time: Double, _ moving: Bool?) {
        intervals[index].fixes += 1
        if time < intervals[index].start { intervals[index].start = time }
        if time >= intervals[index].end {
            intervals[index].end = time
            intervals[index].movingAtEnd = moving
        }
        // The stretch may now reach its neighbours.
        if index + 1 < intervals.count, intervals[index + 1].start - intervals[index].end < threshold {
            let next = intervals.remove(at: index + 1)
            intervals[index].fixes += next.fixes
            if next.end >= intervals[index].end {
                intervals[index].end = next.end
                intervals[index].movingAtEnd = next.movingAtEnd
            }
        }
        if index > 0, intervals[index].start - intervals[index - 1].end < threshold {
            let current = intervals.remove(at: index)
            intervals[index - 1].fixes += current.fixes
            if current.end >= intervals[index - 1].end {
                intervals[index - 1].end = current.end
                intervals[index - 1].movingAtEnd = current.movingAtEnd
            }
        }
    }

    /// The silent stretches between covered ones, oldest first: (start, end, moving at start).
    var gaps: [(start: Double, end: Double, movingAtStart: Bool?)] {
        guard intervals.count > 1 else { return [] }
        return (1..<intervals.count).map { i in
            (intervals[i - 1].end, intervals[i].start, intervals[i - 1].movingAtEnd)
        }
    }
}
