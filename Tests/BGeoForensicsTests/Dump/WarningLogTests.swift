import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `WarningLog` keeps its warnings past the first `held` on a tape, yet lists exactly what a log
/// held whole in memory lists — each warning once, at its first place — after any sequence of
/// adds (repeats included), placements, moves and appends of other logs, themselves held or taped.
@Suite struct WarningLogTests {
    typealias Generator = AssemblyStorageTests.Generator

    /// The rule spelled out: the warnings kept as found, moved as told, each listed once at its first place.
    struct Reference {
        var kept: [DumpWarning] = []

        mutating func add(_ warning: DumpWarning) { kept.append(warning) }
        mutating func place(_ other: [DumpWarning], at index: Int) {
            kept = Array(kept.prefix(index)) + other + kept.dropFirst(index)
        }
        mutating func move(since start: Int, to index: Int) {
            kept = Array(kept.prefix(index)) + kept[start...] + kept[index..<start]
        }
        var listed: [DumpWarning] {
            var seen: Set<DumpWarning> = []
            return kept.filter { seen.insert($0).inserted }
        }
    }

    /// One of 60 warnings (so repeats are common): rows of two tables, and some with no row.
    static func warning(_ generator: inout Generator) -> DumpWarning {
        let n = generator.below(60)
        switch n % 6 {
        case 0: return DumpWarning(table: "evidence", rowId: nil, message: "input \(n) could not be hashed")
        case 1, 2: return DumpWarning(table: "log_entries", rowId: Int64(n / 3), message: "message \(n % 4) — ünïcode")
        default: return DumpWarning(table: "location_events", rowId: Int64(n / 2) - 5, message: "row \(n)")
        }
    }

    static func listed(_ log: WarningLog) throws -> [DumpWarning] {
        var listed: [DumpWarning] = []
        try log.list().forEach { listed.append($0) }
        return listed
    }

    @Test(arguments: [1, 3, 17, 1_000])
    func aTapedLogListsWhatTheRuleLists(held: Int) throws {
        let dir = TestDirectory("warning-log-\(held)")
        let folder = WorkFolder(path: dir.path)
        var generator = Generator(state: UInt64(held) * 7919)
        var tapedAtLeastOnce = false
        for round in 0..<40 {
            // The same steps on a log that tapes and on one held whole in memory.
            let logs = [WarningLog(folder: folder, held: held), WarningLog()]
            var reference = Reference()
            for _ in 0..<(20 + generator.below(120)) {
                switch generator.below(10) {
                case 0..<6:
                    let warning = Self.warning(&generator)
                    for log in logs { log.add(warning) }
                    reference.add(warning)
                case 6, 7:
                    // Another connection's warnings, held or taped, placed at a past position.
                    let others = [WarningLog(), WarningLog(folder: folder, held: 1 + generator.below(4))]
                    var otherReference = Reference()
                    for _ in 0..<generator.below(12) {
                        let warning = Self.warning(&generator)
                        for other in others { other.add(warning) }
                        otherReference.add(warning)
                    }
                    let other = generator.below(2)
                    if generator.below(3) == 0 {
                        for log in logs { log.add(contentsOf: others[other]) }
                        reference.place(otherReference.kept, at: reference.kept.count)
                    } else {
                        let index = generator.below(reference.kept.count + 1)
                        for log in logs { log.place(others[1 - other], at: index) }
                        reference.place(otherReference.kept, at: index)
                    }
                default:
                    let start = generator.below(reference.kept.count + 1), index = generator.below(start + 1)
                    for log in logs { log.moveWarnings(since: start, to: index) }
                    reference.move(since: start, to: index)
                }
                if logs[0].isTaped { tapedAtLeastOnce = true }
            }
            let expected = reference.listed
            for log in logs {
                #expect(log.count == reference.kept.count, "round \(round)")
                let list = try log.list()
                #expect(try Self.listed(log) == expected, "round \(round)")
                #expect(list.count == expected.count)
                #expect(list.prefix(7) == Array(expected.prefix(7)))
                #expect(list.rowlessCount == expected.count { $0.rowId == nil })
                #expect(list.rowCount == Set(expected.compactMap { w in w.rowId.map { "\(w.table) \($0)" } }).count)
                var kept: [DumpWarning] = []
                try log.forEachKept(from: 3) { kept.append($0) }
                #expect(kept == Array(reference.kept.dropFirst(3)))
            }
        }
        if held < 1_000 { #expect(tapedAtLeastOnce) }
    }

    /// A list longer than it keeps in memory: the first warnings at hand, every one read back in order.
    @Test func aLongListIsReadFromItsTape() throws {
        let dir = TestDirectory("warning-log-long")
        let log = WarningLog(folder: WorkFolder(path: dir.path), held: 100)
        for row in 0..<3_000 {
            log.add(table: "log_entries", rowId: Int64(row), "line \(row)")
            if row % 3 == 0 { log.add(table: "log_entries", rowId: Int64(row / 2), "line \(row / 2)") }
        }
        #expect(log.isTaped)
        #expect(log.count > 3_000)
        let list = try log.list()
        #expect(list.count == 3_000)
        #expect(list.rowCount == 3_000)
        #expect(list.prefix(WarningList.leadingCount).map(\.rowId) == (0..<Int64(WarningList.leadingCount)).map { $0 })
        var rows: [Int64] = []
        try list.forEach { rows.append($0.rowId!) }
        #expect(rows == (0..<3_000).map { Int64($0) })
        // Its files live in the working folder.
        #expect(try !FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// The trace's conflict warnings come out in row order, those of one row as met, whether
    /// sorted in memory or on disk.
    @Test(arguments: [1, 50, 10_000])
    func conflictWarningsComeOutInRowOrder(held: Int) throws {
        let dir = TestDirectory("conflict-warnings-\(held)")
        var generator = Generator(state: 42)
        let warnings = ConflictWarnings(folder: WorkFolder(path: dir.path), held: held)
        var met: [DumpWarning] = []
        for i in 0..<2_000 {
            let warning = DumpWarning(table: "log_entries", rowId: Int64(generator.below(300)) - 20, message: "copy \(i)")
            warnings.append(warning)
            met.append(warning)
        }
        let log = WarningLog()
        try warnings.report(to: log)
        let expected = met.enumerated().sorted { ($0.element.rowId!, $0.offset) < ($1.element.rowId!, $1.offset) }.map(\.element)
        #expect(log.all == expected)
    }
}
