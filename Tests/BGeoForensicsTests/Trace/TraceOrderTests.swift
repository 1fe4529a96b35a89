import Testing
@testable import BGeoForensics
@testable import BGeoSimulation

/// Fixes with the very same time are ordered by one fixed procedure (`TraceOrder.arrangeTies`: a
/// stable merge sort from gathering order, since `Fix.tieOrder` need not be transitive across
/// mixed origins). A pair is ordered in place, without the sort's arrays; every group must still
/// come out exactly as the procedure orders it.
@Suite struct TraceOrderTests {
    /// The procedure as it was written before pairs were ordered in place (f4f050d..c5da96b).
    static func reference(_ group: [Fix]) -> [Fix] {
        guard group.count > 1 else { return group }
        var items = group
        var buffer = items
        func mergeSort(_ low: Int, _ high: Int) {
            guard high - low > 1 else { return }
            let middle = (low + high) / 2
            mergeSort(low, middle)
            mergeSort(middle, high)
            var left = low, right = middle, out = low
            while left < middle, right < high {
                if Fix.tieOrder(items[right], items[left]) {
                    buffer[out] = items[right]; right += 1
                } else {
                    buffer[out] = items[left]; left += 1
                }
                out += 1
            }
            while left < middle { buffer[out] = items[left]; left += 1; out += 1 }
            while right < high { buffer[out] = items[right]; right += 1; out += 1 }
            for i in low..<high { items[i] = buffer[i] }
        }
        mergeSort(0, items.count)
        return items
    }

    static func key(_ fix: Fix) -> String { "\(fix.rowId.map(String.init) ?? "-")/\(fix.logId.map(String.init) ?? "-")/\(fix.source.rawValue)/\(fix.index)" }

    @Test func tieGroupsComeOutAsTheProcedureOrdersThem() {
        var rng = SplitMix64(seed: 27)
        var pairsSwapped = 0
        for trial in 0..<4000 {
            let count = [2, 2, 2, 3, 4, 5, 7][rng.int(0...6)]
            // Few distinct ids, mixed origins: equal ids, queue rows beside log rows (non-transitive cases).
            let group = (0..<count).map { index in
                Fix(index: index, time: 1_784_880_000, latitude: 52, longitude: 21,
                    source: FixSource.allCases[rng.int(0...(FixSource.allCases.count - 1))],
                    rowId: rng.int(0...2) == 0 ? nil : Int64(rng.int(1...4)),
                    logId: rng.int(0...2) == 0 ? nil : Int64(rng.int(1...4)))
            }
            var slice = group[...]
            TraceOrder.arrangeTies(&slice)
            let got = slice.map(Self.key), expected = Self.reference(group).map(Self.key)
            #expect(got == expected, "trial \(trial): \(group.map(Self.key))")
            if count == 2, got != group.map(Self.key) { pairsSwapped += 1 }
        }
        #expect(pairsSwapped > 100)
    }

    /// A pair inside a longer array is ordered where it stands (slice indices not starting at 0).
    @Test func aPairInsideAnArrayIsOrderedInPlace() {
        var fixes = [
            Fix(index: 0, time: 1, latitude: 0, longitude: 0, rowId: 9),
            Fix(index: 1, time: 2, latitude: 0, longitude: 0, rowId: 7),
            Fix(index: 2, time: 2, latitude: 0, longitude: 0, rowId: 3),
            Fix(index: 3, time: 3, latitude: 0, longitude: 0, rowId: 1),
        ]
        TraceOrder.sort(&fixes)
        #expect(fixes.map(\.index) == [0, 2, 1, 3])
    }
}
