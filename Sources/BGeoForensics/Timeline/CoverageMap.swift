import BGeoReader
import Foundation

/// The stretches of time covered by fixes, built one fix at a time in any order. Fixes closer
/// than `threshold` join the same stretch, so memory grows with the number of gaps, not the
/// number of fixes (a million fixes with no gap is one interval).
///
/// Fixes come nearly in order: one at or after the newest stretch's start extends or follows it
/// at once; an older one waits (`pending`) and is folded in with the others that wait by one
/// linear merge (`settle`) once there are as many as stretches (or 4,096). Inserting each into the
/// sorted stretches moved every later stretch per fix (stop 51: a log whose fix lines cover the
/// first half of a dump and a queue the second, a gap every other fix: `timeline` 1.3 s at 80,000
/// fixes, 15.9 s at 320,000, 89 % of it in `memmove`).
struct CoverageMap: Sendable {
    /// What is remembered of a fix at a stretch's edge: its time, motion, and either its position
    /// or the row to read it from (a fix whose position is known needs no row; no reader gives
    /// both). Stored in 32 bytes, the position and the row sharing their room: a map of many gaps
    /// holds two per stretch, and three lists of stretches at once while the log's and the
    /// queue's maps merge (stop 54: 96 MB at 400,000 gaps with 48-byte edges).
    struct Edge: Sendable, Equatable {
        var time: Double
        /// The latitude's bits, or the row's.
        private var first: UInt64
        /// The longitude's bits.
        private var second: UInt64
        private var flags: UInt8

        private static let hasLatitude: UInt8 = 1, hasLongitude: UInt8 = 2, hasQueueRow: UInt8 = 4, hasLogRow: UInt8 = 8,
                           knowsMotion: UInt8 = 16, isMoving: UInt8 = 32

        /// A position given leaves out the row; of two rows the log's stands (its line is the
        /// richer record).
        init(time: Double, moving: Bool? = nil, queueRow: Int64? = nil, logRow: Int64? = nil,
             latitude: Double? = nil, longitude: Double? = nil) {
            self.time = time
            flags = (moving == nil ? 0 : Edge.knowsMotion) | (moving == true ? Edge.isMoving : 0)
            if latitude != nil || longitude != nil {
                first = (latitude ?? 0).bitPattern
                second = (longitude ?? 0).bitPattern
                flags |= (latitude == nil ? 0 : Edge.hasLatitude) | (longitude == nil ? 0 : Edge.hasLongitude)
            } else if let row = logRow ?? queueRow {
                first = UInt64(bitPattern: row)
                second = 0
                flags |= logRow != nil ? Edge.hasLogRow : Edge.hasQueueRow
            } else {
                first = 0
                second = 0
            }
        }

        /// The fix's own motion state (nil: unknown, or not read yet for a queued fix).
        var moving: Bool? { flags & Edge.knowsMotion != 0 ? flags & Edge.isMoving != 0 : nil }
        /// The queue row, for a fix whose details are looked up only when it borders a gap.
        var queueRow: Int64? { flags & Edge.hasQueueRow != 0 ? Int64(bitPattern: first) : nil }
        /// The `location` log row, likewise.
        var logRow: Int64? { flags & Edge.hasLogRow != 0 ? Int64(bitPattern: first) : nil }
        var latitude: Double? { flags & Edge.hasLatitude != 0 ? Double(bitPattern: first) : nil }
        var longitude: Double? { flags & Edge.hasLongitude != 0 ? Double(bitPattern: second) : nil }

        /// The edge with what its row records filled in where it is missing (`found` nil: as is).
        func completed(with found: FixMotion?) -> Edge {
            guard let found else { return self }
            return Edge(time: time, moving: moving ?? found.moving, queueRow: queueRow, logRow: logRow,
                        latitude: latitude ?? found.latitude, longitude: longitude ?? found.longitude)
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
    /// The stretches of the fixes folded in so far, oldest first, each `threshold` or more before
    /// the next.
    private var settled: [Interval] = []
    /// Fixes older than the newest stretch's start, in the order they came, not folded in yet.
    private var pending: [Edge] = []
    /// How many fixes may wait at least (more when there are more stretches: a merge then costs
    /// about what the waiting fixes' own insertions would).
    private let pendingLimit: Int
    private(set) var fixCount = 0

    init(threshold: Double, pendingLimit: Int = 4096) {
        self.threshold = threshold
        self.pendingLimit = max(1, pendingLimit)
    }

    /// The stretches, oldest first (the waiting fixes folded into a copy when some wait).
    var intervals: [Interval] {
        guard !pending.isEmpty else { return settled }
        var copy = self
        copy.settle()
        return copy.settled
    }

    /// Adds one fix at `time`. `moving` is the fix's own motion state.
    mutating func add(_ time: Double, moving: Bool?, queueRow: Int64? = nil) {
        add(Edge(time: time, moving: moving, queueRow: queueRow))
    }

    mutating func add(_ fix: Edge) {
        guard fix.time.isFinite else { return }
        fixCount += 1
        addSettled(fix)
    }

    /// Extends or follows the newest stretch with `fix`, or leaves it to wait when it is older.
    private mutating func addSettled(_ fix: Edge) {
        let time = fix.time
        guard let last = settled.last else {
            settled.append(Interval(first: fix, last: fix, fixes: 1))
            return
        }
        // Every comparison is a difference against the threshold (exact for two times of the same
        // magnitude), never a sum (rounded): so a gap of exactly the threshold is judged alike on
        // every path, and the map does not depend on the order the fixes came in.
        if time >= last.end, time - last.end >= threshold {
            settled.append(Interval(first: fix, last: fix, fixes: 1))
        } else if time >= last.start {
            // Within the newest stretch or less than `threshold` after it: it grows (its start
            // does not move, so it reaches no other stretch).
            var grown = last
            grown.fixes += 1
            if time == grown.start && fix.richness > grown.first.richness { grown.first = fix }
            if time > grown.end || (time == grown.end && fix.richness > grown.last.richness) { grown.last = fix }
            settled[settled.count - 1] = grown
        } else {
            pending.append(fix)
            if pending.count >= max(pendingLimit, settled.count) { settle() }
        }
    }

    /// Folds the waiting fixes in: in time order (in the order they came at one instant) they
    /// make stretches of their own, merged after the settled ones as `absorb` merges a later map.
    /// A fix that waited is older than every fix that came after it and went straight in, so it
    /// counts as the later one only against fixes that came before it: the order-of-arrival rule
    /// at one instant (the first of equally rich fixes stands) holds.
    mutating func settle() {
        guard !pending.isEmpty else { return }
        let waiting = pending
        pending = []
        var batch = CoverageMap(threshold: threshold)
        for index in waiting.stableOrder(byTime: \.time) { batch.addSettled(waiting[index]) }
        merge(batch.settled)
    }

    /// Adds the fixes `later` gathered (with the same threshold) as if each had been `add`ed here,
    /// after this map's own: a map built from two halves of a log equals the map of the whole.
    /// Stretches whose gap is under the threshold join (overlapping ones too: a stretch's fixes
    /// are less than the threshold apart, so one of them is that close to anything inside it);
    /// at the joined stretch's edge, a later fix at the same instant wins only when richer, as in
    /// `add`.
    mutating func absorb(_ later: CoverageMap) {
        settle()
        fixCount += later.fixCount
        merge(later.intervals)
    }

    /// Merges `joining` (sorted stretches, each `threshold` or more from the next) into the
    /// settled ones in one pass, as inserting them one at a time would: each joins the stretches
    /// less than `threshold` from it — the last one written (an earlier join may have grown it)
    /// and settled ones — keeping their edges unless its own are strictly outside or, at the
    /// same instant, strictly richer.
    private mutating func merge(_ joining: [Interval]) {
        guard !joining.isEmpty else { return }
        guard !settled.isEmpty else { settled = joining; return }
        var out: [Interval] = []
        out.reserveCapacity(mergedCount(joining))
        var next = 0
        for var merged in joining {
            while next < settled.count, merged.start - settled[next].end >= threshold {
                out.append(settled[next])
                next += 1
            }
            let joinsWritten = out.last.map { merged.start - $0.end < threshold } ?? false
            var upper = next
            while upper < settled.count, settled[upper].start - merged.end < threshold { upper += 1 }
            guard joinsWritten || upper > next else {
                out.append(merged)
                continue
            }
            let first = joinsWritten ? out[out.count - 1].first : settled[next].first
            let last = upper > next ? settled[upper - 1].last : out[out.count - 1].last
            let joiningFirst = merged.first, joiningLast = merged.last
            if joinsWritten { merged.fixes += out[out.count - 1].fixes }
            for k in next..<upper { merged.fixes += settled[k].fixes }
            if !(joiningFirst.time < first.time || (joiningFirst.time == first.time && joiningFirst.richness > first.richness)) {
                merged.first = first
            }
            if !(joiningLast.time > last.time || (joiningLast.time == last.time && joiningLast.richness > last.richness)) {
                merged.last = last
            }
            if joinsWritten { out[out.count - 1] = merged } else { out.append(merged) }
            next = upper
        }
        out.append(contentsOf: settled[next...])
        settled = out
    }

    /// How many stretches `merge(joining)` leaves, counted by the same walk without writing them
    /// (so the merged list is allocated once, at its size).
    private func mergedCount(_ joining: [Interval]) -> Int {
        var count = 0, next = 0
        var lastEnd: Double?
        for merged in joining {
            while next < settled.count, merged.start - settled[next].end >= threshold {
                count += 1
                lastEnd = settled[next].end
                next += 1
            }
            let joinsWritten = lastEnd.map { merged.start - $0 < threshold } ?? false
            var upper = next
            while upper < settled.count, settled[upper].start - merged.end < threshold { upper += 1 }
            let end = upper > next ? max(merged.end, settled[upper - 1].end) : merged.end
            if joinsWritten {
                lastEnd = max(lastEnd ?? end, end)
            } else {
                count += 1
                lastEnd = end
            }
            next = upper
        }
        return count + settled.count - next
    }

    /// True when one stretch settled so far reaches strictly past both `start` and `end`: no gap,
    /// now or after more fixes are added (stretches only grow and join), comes within that span.
    /// Fixes still waiting are not looked at (`settle` first to count them): a false answer is
    /// the safe one.
    func coversStrictly(from start: Double, to end: Double) -> Bool {
        // The last stretch that starts before `start`.
        let low = settled.partitionPoint { $0.start < start }
        return low > 0 && settled[low - 1].end > end
    }

    /// The silent stretches between covered ones, oldest first: the fix before and the fix after.
    /// A view over the stretches, not a list beside them (every gap's two edges were 16 MB at
    /// 130,000 gaps, stop 51).
    var gaps: LazyMapCollection<Range<Int>, (before: Edge, after: Edge)> {
        let intervals = intervals
        return (1..<max(1, intervals.count)).lazy.map { i in (intervals[i - 1].last, intervals[i].first) }
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
