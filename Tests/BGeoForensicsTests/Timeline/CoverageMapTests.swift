import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The coverage map against its rule spelled out: the fixes sorted by time, cut wherever two
/// neighbours are `threshold` or more apart; each stretch's edge is its earliest (latest) fix,
/// the richest at that instant, the first to come among equally rich ones. Fixes come in any
/// order — nearly sorted, shuffled, reversed, in two halves absorbed — with ties, and with the
/// waiting fixes folded in after 1 to 5,000 of them.
@Suite struct CoverageMapTests {
    /// A fix and the order it came in.
    struct Arrival {
        let edge: CoverageMap.Edge
        let order: Int
    }

    /// The stretches the rule gives for `fixes` (in arrival order).
    static func reference(_ fixes: [CoverageMap.Edge], threshold: Double) -> [CoverageMap.Interval] {
        let arrivals = fixes.enumerated().map { Arrival(edge: $0.element, order: $0.offset) }
            .filter { $0.edge.time.isFinite }
            .sorted { ($0.edge.time, $0.order) < ($1.edge.time, $1.order) }
        var groups: [[Arrival]] = []
        for arrival in arrivals {
            if let last = groups.last?.last, arrival.edge.time - last.edge.time < threshold {
                groups[groups.count - 1].append(arrival)
            } else {
                groups.append([arrival])
            }
        }
        func stands(_ candidates: [Arrival]) -> CoverageMap.Edge {
            let richest = candidates.map(\.edge.richness).max()!
            return candidates.filter { $0.edge.richness == richest }.min { $0.order < $1.order }!.edge
        }
        return groups.map { group in
            let start = group.first!.edge.time, end = group.last!.edge.time
            return CoverageMap.Interval(first: stands(group.filter { $0.edge.time == start }),
                                        last: stands(group.filter { $0.edge.time == end }), fixes: group.count)
        }
    }

    static func randomEdge(_ rng: inout SplitMix64, time: Double, row: Int64) -> CoverageMap.Edge {
        switch rng.int(0...3) {
        case 0: return CoverageMap.Edge(time: time, queueRow: row)
        case 1: return CoverageMap.Edge(time: time, logRow: row)
        case 2: return CoverageMap.Edge(time: time, moving: rng.chance(0.5), logRow: row)
        default: return CoverageMap.Edge(time: time, moving: nil, queueRow: row, latitude: 52 + rng.unit(), longitude: 21)
        }
    }

    /// Times on a coarse grid (many ties, gaps of exactly the threshold) in one of several orders.
    static func randomFixes(_ rng: inout SplitMix64, count: Int) -> [CoverageMap.Edge] {
        var times: [Double] = []
        var t = 0.0
        for _ in 0..<count {
            times.append(t)
            t += [0, 5, 10, 100, 300, 450, 900][rng.int(0...6)]
        }
        switch rng.int(0...4) {
        case 0: break
        case 1: times.shuffle(using: &rng)
        case 2: times.reverse()
        case 3:
            // Nearly sorted: a few late rows.
            for _ in 0..<(count / 10) where count > 1 { times.swapAt(rng.int(0...(count - 1)), rng.int(0...(count - 1))) }
        default:
            // Two sorted halves, the later first (a log of recent fixes before an older queue).
            times = Array(times[(count / 2)...]) + Array(times[..<(count / 2)])
        }
        if rng.chance(0.1), !times.isEmpty { times[rng.int(0...(times.count - 1))] = .nan }
        return times.enumerated().map { randomEdge(&rng, time: $0.element, row: Int64($0.offset)) }
    }

    @Test func fixesInAnyOrderMakeTheStretchesTheRuleGives() {
        var rng = SplitMix64(seed: 20261207)
        for round in 0..<600 {
            let fixes = Self.randomFixes(&rng, count: rng.int(0...400))
            let limit = [1, 2, 7, 64, 5_000][rng.int(0...4)]
            var map = CoverageMap(threshold: 450, pendingLimit: limit)
            for fix in fixes { map.add(fix) }
            let expected = Self.reference(fixes, threshold: 450)
            #expect(map.intervals == expected, "round \(round), limit \(limit)")
            #expect(map.fixCount == fixes.filter { $0.time.isFinite }.count)
            map.settle()
            #expect(map.intervals == expected, "round \(round) settled")
        }
    }

    @Test func aLaterMapAbsorbedEqualsOneMapOfBoth() {
        var rng = SplitMix64(seed: 51)
        for round in 0..<400 {
            let fixes = Self.randomFixes(&rng, count: rng.int(0...300))
            let cut = fixes.isEmpty ? 0 : rng.int(0...fixes.count)
            var earlier = CoverageMap(threshold: 450, pendingLimit: rng.int(1...50))
            var later = CoverageMap(threshold: 450, pendingLimit: rng.int(1...50))
            for fix in fixes[..<cut] { earlier.add(fix) }
            for fix in fixes[cut...] { later.add(fix) }
            earlier.absorb(later)
            #expect(earlier.intervals == Self.reference(fixes, threshold: 450), "round \(round), cut \(cut)")
            #expect(earlier.fixCount == fixes.filter { $0.time.isFinite }.count)
        }
    }

    /// A settled map says a span is covered only when it is, waiting fixes or not.
    @Test func coversStrictlyOnlyWhatIsCovered() {
        var map = CoverageMap(threshold: 900, pendingLimit: 1_000)
        for t in stride(from: 10_000.0, through: 12_000, by: 10) { map.add(t, moving: true) }
        for t in stride(from: 0.0, through: 2_000, by: 10) { map.add(t, moving: true) }
        #expect(map.coversStrictly(from: 10_500, to: 11_500))
        #expect(!map.coversStrictly(from: 500, to: 1_500))
        map.settle()
        #expect(map.coversStrictly(from: 500, to: 1_500))
        #expect(!map.coversStrictly(from: 1_500, to: 10_500))
    }

    /// Regression (stop 51): a fix older than the newest stretch was inserted into the sorted
    /// stretches, moving every later one; fix lines covering one half of a dump and queue rows
    /// the other, a gap every other fix, took `timeline` 1.3 s at 80,000 fixes and 15.9 s at
    /// 320,000. 200,000 stretches, each older one added after all the newer ones, now take a
    /// linear merge per 4,096 or more waiting fixes; inserting them cost about 10^10 bytes moved.
    @Test func olderStretchesAddedLastStayLinear() {
        var map = CoverageMap(threshold: 900)
        let half = 100_000
        var intervals: [CoverageMap.Interval] = []
        let elapsed = ContinuousClock().measure {
            for i in half..<(2 * half) { map.add(Double(i) * 1_000, moving: nil, queueRow: Int64(i)) }
            for i in 0..<half { map.add(Double(i) * 1_000, moving: nil, queueRow: Int64(i)) }
            intervals = map.intervals
        }
        #expect(intervals.count == 2 * half && map.fixCount == 2 * half)
        #expect(intervals.first?.first.queueRow == 0 && intervals.last?.last.queueRow == Int64(2 * half - 1))
        #expect(elapsed < .seconds(5))
    }

    @Test func anEdgeKeepsWhatItWasGiven() {
        let full = CoverageMap.Edge(time: 5, moving: false, latitude: -0.0, longitude: 180)
        #expect(full.moving == false && full.queueRow == nil && full.logRow == nil && full.latitude == -0.0 && full.longitude == 180)
        #expect(full.latitude?.sign == .minus)
        // A row is kept where no position is known (the position and the row share their room);
        // of two rows the log's stands.
        let queued = CoverageMap.Edge(time: 5, moving: true, queueRow: -3)
        #expect(queued.queueRow == -3 && queued.logRow == nil && queued.latitude == nil && queued.moving == true)
        let logged = CoverageMap.Edge(time: 5, queueRow: Int64.min, logRow: Int64.max)
        #expect(logged.logRow == Int64.max && logged.queueRow == nil && logged.longitude == nil)
        let placed = CoverageMap.Edge(time: 5, queueRow: 7, longitude: 3)
        #expect(placed.queueRow == nil && placed.latitude == nil && placed.longitude == 3 && placed.richness == 0)
        let none = CoverageMap.Edge(time: 5)
        #expect(none.moving == nil && none.queueRow == nil && none.logRow == nil && none.latitude == nil && none.longitude == nil)
        #expect(none != full && none.richness == 0 && full.richness == 2)
        #expect(CoverageMap.Edge(time: 5, logRow: 9).richness == 1 && CoverageMap.Edge(time: 5, moving: true).moving == true)
        // Completed from its row only where it knows nothing.
        let found = FixMotion(moving: true, latitude: 1, longitude: 2)
        #expect(full.completed(with: found) == full)
        #expect(none.completed(with: found) == CoverageMap.Edge(time: 5, moving: true, latitude: 1, longitude: 2))
        #expect(none.completed(with: nil) == none)
        #expect(MemoryLayout<CoverageMap.Edge>.stride <= 32)
        #expect(MemoryLayout<CoverageMap.Interval>.stride <= 72)
    }
}
