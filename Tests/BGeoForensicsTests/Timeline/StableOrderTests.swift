import Testing
@testable import BGeoForensics
@testable import BGeoSimulation

/// `stableOrder(byTime:)` (the coverage map's waiting fixes, the gaps' marks, Timesketch's timed
/// lines) is the order the pairs of place and element sorted by (time, place) give: on random
/// lists with many equal times, shuffled, sorted and reversed.
@Suite struct StableOrderTests {
    @Test func placesSortByTimeThenPlace() {
        var rng = SplitMix64(seed: 20261213)
        var ties = 0
        for round in 0..<500 {
            var times = (0..<rng.int(0...300)).map { _ in Double(rng.int(0...20)) }
            if round % 3 == 1 { times.sort() } else if round % 3 == 2 { times.sort(by: >) }
            let reference = times.enumerated().sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }.map(\.offset)
            #expect(times.stableOrder(byTime: { $0 }) == reference, "\(times)")
            #expect(times.sortedStably(byTime: { $0 }) == reference.map { times[$0] })
            ties += times.count - Set(times).count
        }
        #expect(ties > 10_000, "equal times exercised: \(ties)")
    }
}
