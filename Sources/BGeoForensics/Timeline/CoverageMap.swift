import BGeoReader
import Foundation

/// The stretches of time covered by fixes, built one fix at a time in any order. Fixes closer
/// than `threshold` join the same stretch, so memory grows with the number of gaps, not the
/// number of fixes (a million fixes with no gap is one interval).
struct CoverageMap: Sendable {
    /// What is remembered of a fix at a stretch's edge.
    struct Edge: Sendable, Equatable {
        var time: Double
        /// The fix's own motion state (nil: unknown, or not read yet for a queued fix).
        var moving: Bool?
        /// The queue row, for a fix whose details are looked up only when it borders a gap.
        var queueRow: Int64?
        /// The `location` log row, likewise.
        var logRow: Int64?
        var latitude: Double?
        var longitude: Double?

        init(time: Double, moving: Bool? = nil, queueRow: Int64? = nil, logRow: Int64? = nil,
             latitude: Double? = nil, longitude: Double? = nil) {
            self.time = time
            self.moving = moving
            self.queueRow = queueRow
            self.logRow = logRow
            self.latitude = latitude
            self.longitude = longitude
        }

        /// The edge with what its row records filled in where it is missing (`found` nil: as is).
        func completed(with found: FixMotion?) -> Edge {
            guard let found else { return self }
            var completed = self
            if completed.moving == nil { completed.moving = found.moving }
            if completed.latitude == nil { completed.latitude = found.latitude }
            if completed.longitude == nil { completed.longitude = found.longitude }
            return completed
        }

        /// Details known > a log row to read them from > a queue row: at the same instant the
        /// richer fix stands for the edge.
        var richness: Int { moving != nil || latitude != nil ? 2 : (logRow != nil ? 1 : 0) }
        var isRicher: Bool { richness > 0 }
    }

    struct Interval: Sendable, Equatable {
        var first: Edge
        var last: Edge
        var fixes: Int
        var start: Double { first.time }
        var end: Double { last.time }
    }

    let threshold: Double
    private(set) var intervals: [Interval] = []
    private(set) var fixCount = 0

    init(threshold: Double) { self.threshold = threshold }

    /// Adds one fix at `time`. `moving` is the fix's own motion state.
    mutating func add(_ time: Double, moving: Bool?, queueRow: Int64? = nil) {
        add(Edge(time: time, moving: moving, queueRow: queueRow))
    }

    mutating func add(_ fix: Edge) {
        guard fix.time.isFinite else { return }
        fixCount += 1
        let time = fix.time
        // Fast path: fixes arrive nearly in order.
        if let last = intervals.last {
            if time >= last.end {
                if time - last.end >= threshold {
                    intervals.append(Interval(first: fix, last: fix, fixes: 1))
                } else {
                    extend(intervals.count - 1, fix)
                }
                return
            }
            if time >= last.start {
                extend(intervals.count - 1, fix)
                return
            }
        }
        if intervals.isEmpty {
            intervals.append(Interval(first: fix, last: fix, fixes: 1))
            return
        }
        // General case: find the first interval that ends less than `threshold` before time.
        // Every comparison is a difference against the threshold (exact for two times of the same
        // magnitude), never a sum (rounded): so a gap of exactly the threshold is judged alike on
        // every path, and the map does not depend on the order the fixes came in (`absorb`).
        let low = intervals.partitionPoint { time - $0.end >= threshold }
        if low < intervals.count, intervals[low].start - time < threshold {
            extend(low, fix)
        } else {
            intervals.insert(Interval(first: fix, last: fix, fixes: 1), at: low)
        }
    }

    private mutating func extend(_ index: Int, _ fix: Edge) {
        intervals[index].fixes += 1
        if fix.time < intervals[index].start || (fix.time == intervals[index].start && fix.richness > intervals[index].first.richness) {
            intervals[index].first = fix
        }
        if fix.time > intervals[index].end || (fix.time == intervals[index].end && fix.richness > intervals[index].last.richness) {
            intervals[index].last = fix
        }
        // The stretch may now reach its neighbours.
        if index + 1 < intervals.count, intervals[index + 1].start - intervals[index].end < threshold {
            let next = intervals.remove(at: index + 1)
            intervals[index].fixes += next.fixes
            if next.end >= intervals[index].end { intervals[index].last = next.last }
        }
        if index > 0, intervals[index].start - intervals[index - 1].end < threshold {
            let current = intervals.remove(at: index)
            intervals[index - 1].fixes += current.fixes
            if current.end >= intervals[index - 1].end { intervals[index - 1].last = current.last }
        }
    }

    /// Adds the fixes `later` gathered (with the same threshold) as if each had been `add`ed here,
    /// after this map's own: a map built from two halves of a log equals the map of the whole.
    /// Stretches whose gap is under the threshold join (overlapping ones too: a stretch's fixes
    /// are less than the threshold apart, so one of them is that close to anything inside it);
    /// at the joined stretch's edge, a later fix at the same instant wins only when richer, as in
    /// `extend`.
    mutating func absorb(_ later: CoverageMap) {
        fixCount += later.fixCount
        for interval in later.intervals { absorb(interval) }
    }

    private mutating func absorb(_ joining: Interval) {
        let low = intervals.partitionPoint { joining.start - $0.end >= threshold }
        var upper = low
        while upper < intervals.count, intervals[upper].start - joining.end < threshold { upper += 1 }
        guard low < upper else {
            intervals.insert(joining, at: low)
            return
        }
        var merged = joining
        merged.fixes += intervals[low..<upper].reduce(0) { $0 + $1.fixes }
        let first = intervals[low].first, last = intervals[upper - 1].last
        if !(joining.first.time < first.time || (joining.first.time == first.time && joining.first.richness > first.richness)) {
            merged.first = first
        }
        if !(joining.last.time > last.time || (joining.last.time == last.time && joining.last.richness > last.richness)) {
            merged.last = last
        }
        intervals.replaceSubrange(low..<upper, with: [merged])
    }

    /// True when one stretch reaches strictly past both `start` and `end`: no gap, now or after
    /// more fixes are added (stretches only grow and join), comes within that span.
    func coversStrictly(from start: Double, to end: Double) -> Bool {
        // The last stretch that starts before `start`.
        let low = intervals.partitionPoint { $0.start < start }
        return low > 0 && intervals[low - 1].end > end
    }

    /// The silent stretches between covered ones, oldest first: the fix before and the fix after.
    var gaps: [(before: Edge, after: Edge)] {
        guard intervals.count > 1 else { return [] }
        return (1..<intervals.count).map { i in (intervals[i - 1].last, intervals[i].first) }
    }

    /// Great-circle distance in metres (haversine, mean Earth radius).
    static func distance(_ a: Edge, _ b: Edge) -> Double? {
        guard let lat1 = a.latitude, let lon1 = a.longitude, let lat2 = b.latitude, let lon2 = b.longitude else { return nil }
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad
        let dLon = (lon2 - lon1) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
    }
}
