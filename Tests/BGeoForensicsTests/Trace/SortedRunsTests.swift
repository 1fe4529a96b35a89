import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `SortedRuns` (the external sort that gathers copies apart) reads rows back in the order a
/// `SpillTable` (SQLite's BLOB order) would, whatever the order they came in, the sizes of its
/// runs and how many levels of merges it takes.
@Suite struct SortedRunsTests {
    /// Rows of random keys (some prefixes of others, some empty) and payloads, in random order.
    static func rows(count: Int, seed: UInt64) -> [(key: SpillKey, payload: [UInt8])] {
        var generator = AssemblyStorageTests.Generator(state: seed)
        var seen = Set<[UInt8]>()
        var rows: [(key: SpillKey, payload: [UInt8])] = []
        while rows.count < count {
            var key = SpillKey()
            let length = generator.below(6)
            key.append(bytes: (0..<length).map { _ in UInt8(generator.below(4)) })
            if generator.below(3) == 0 { key.append(Int64(generator.below(1000)) - 500) }
            guard seen.insert(key.bytes).inserted else { continue }
            rows.append((key, (0..<generator.below(40)).map { _ in UInt8(generator.below(256)) }))
        }
        return rows
    }

    @Test(arguments: [(budget: 1, fanIn: 2), (budget: 300, fanIn: 3), (budget: 5_000, fanIn: 8), (budget: 1 << 22, fanIn: 8)])
    func rowsComeBackInTheSpillTablesOrder(budget: Int, fanIn: Int) throws {
        let dir = TestDirectory("sorted-runs-\(budget)")
        let folder = WorkFolder(path: dir.path)
        let rows = Self.rows(count: 2_000, seed: UInt64(budget))
        let runs = SortedRuns(folder: folder, stem: "runs", budget: budget, fanIn: fanIn)
        let table = try SpillTable(folder: folder, stem: "table")
        for row in rows {
            try runs.add(key: row.key) { sink in row.payload.withUnsafeBytes { sink.put(bytes: $0) } }
            try table.add(key: row.key) { sink in row.payload.withUnsafeBytes { sink.put(bytes: $0) } }
        }
        func read(_ next: ((TapeRecordReader) -> Void) -> Bool) -> [[UInt8]] {
            var payloads: [[UInt8]] = []
            while next({ record in
                var record = record
                payloads.append(Array(record.bytes()))
            }) {}
            return payloads
        }
        let runsCursor = try runs.cursor()
        let sorted = read(runsCursor.next)
        #expect(runsCursor.failure == nil)
        let tableCursor = try table.cursor()
        let expected = read(tableCursor.next)
        #expect(sorted.count == rows.count)
        #expect(sorted == expected)
        // Not the order they came in: the sort did something.
        #expect(sorted != rows.map(\.payload))
    }

    /// Its files live in the working folder and are gone with it.
    @Test func itsRunsAreRemovedWhenItIsReleased() throws {
        let dir = TestDirectory("sorted-runs-files")
        let folder = WorkFolder(path: dir.path)
        do {
            let runs = SortedRuns(folder: folder, stem: "runs", budget: 100, fanIn: 2)
            for row in Self.rows(count: 500, seed: 9) { try runs.add(key: row.key) { _ in } }
            let cursor = try runs.cursor()
            var count = 0
            while cursor.next({ _ in count += 1 }) {}
            #expect(count == 500)
            #expect(try !FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
