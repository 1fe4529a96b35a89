import Foundation
import Testing
@testable import BGeoReader
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

    /// A tie group too large to hold (a stuck clock) is sorted on disk by the same procedure: the
    /// same splits and merges, so the same order even where `tieOrder` is not transitive.
    @Test func aTieGroupSortedOnDiskComesOutAsTheProcedureOrdersIt() throws {
        let dir = TestDirectory("ties-on-disk")
        let folder = WorkFolder(path: dir.path)
        var rng = SplitMix64(seed: 2712)
        var differFromSorted = 0
        for trial in 0..<120 {
            let count = [0, 1, 2, 3, 7, 64, 65, 257, 1000][trial % 9]
            let held = [2, 3, 5, 16, 100][rng.int(0...4)]
            let group = (0..<count).map { index in
                Fix(index: index, time: 1_784_880_000, latitude: 52, longitude: 21,
                    source: FixSource.allCases[rng.int(0...(FixSource.allCases.count - 1))],
                    rowId: rng.int(0...2) == 0 ? nil : Int64(rng.int(1...40)),
                    logId: rng.int(0...2) == 0 ? nil : Int64(rng.int(1...40)))
            }
            let input = try TapeWriter(path: folder.newFile("group", extension: "tape"))
            for fix in group { input.append(fix) }
            try input.finish()
            let sorted = try TraceOrder.arrangeTies(onTape: input.path, count: count, held: held, folder: folder)
            let reader = try TapeReader(path: sorted)
            var got: [String] = []
            while var record = reader.next() { got.append(Self.key(Fix(from: &record))) }
            let expected = Self.reference(group).map(Self.key)
            #expect(got == expected, "trial \(trial): \(count) fixes, \(held) held")
            // A plain sort by a transitive key would give another order for most large groups.
            if got != group.sorted(by: { Self.key($0) < Self.key($1) }).map(Self.key) { differFromSorted += 1 }
            unlink(input.path)
            unlink(sorted)
        }
        #expect(differFromSorted > 40)
        // Only the result's own tapes were left, and those were removed: nothing else remains.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Runs of one time fed in order come out each arranged, longer runs through the disk.
    @Test func tieRunsArrangeEachRunWhateverItsLength() throws {
        let dir = TestDirectory("tie-runs")
        let folder = WorkFolder(path: dir.path)
        var rng = SplitMix64(seed: 99)
        var fixes: [Fix] = []
        var time = 1_784_880_000.0
        for run in 0..<40 {
            let length = [1, 2, 3, 9, 40][run % 5]
            for _ in 0..<length {
                fixes.append(Fix(index: fixes.count, time: time, latitude: 52, longitude: 21,
                                 source: FixSource.allCases[rng.int(0...3)],
                                 rowId: rng.int(0...2) == 0 ? nil : Int64(rng.int(1...30)),
                                 logId: rng.int(0...2) == 0 ? nil : Int64(rng.int(1...30))))
            }
            time += 0.001
        }
        let out = try TapeWriter(path: folder.newFile("out", extension: "tape"))
        var runs = TraceOrder.TieRuns(out: out, held: 4, folder: folder)
        for fix in fixes { try runs.add(fix) }
        try runs.finish()
        try out.finish()
        var expected = fixes
        TraceOrder.sort(&expected)
        let reader = try TapeReader(path: out.path)
        var got: [String] = []
        while var record = reader.next() { got.append(Self.key(Fix(from: &record))) }
        #expect(got == expected.map(Self.key))
    }
}
