import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A read of a part of a table (`RowScan.rows`: a half of a split read, a chunk of a piped one)
/// hands over only the rows of its part, also where a damaged page sent it to the salvaged rows:
/// the parts, each on its own connection, read exactly the rows one pass reads, once each.
@Suite struct RowRangeTests {
    static let parts: [Range<Int64>] = [Int64.min..<700, 700..<1500, 1500..<2600, 2600..<Int64.max]

    /// Three pages garbled: the reads of the later parts meet damage and read salvaged rows.
    /// (The folder is removed with `dir`: keep it while the dump is read.)
    static func damagedQueue(_ dir: TestDirectory) throws -> String {
        let path = dir.file("bgeo.db")
        try QueueDecodeTests.write(QueueDecodeTests.randomRows(seed: 17, count: 4000), to: path)
        for fraction in [0.3, 0.55, 0.8] { try PageDamage.garble(path, at: fraction) }
        return path
    }

    @Test func decodedRecordsOfEachPartAreItsOwn() throws {
        let dir = TestDirectory("row-range-decoded")
        let path = try Self.damagedQueue(dir)
        var whole: [Int64] = []
        let wholeDump = try Dump(path: path)
        let wholeRead = wholeDump.forEachDecodedRecord { whole.append($0.rowId) }
        #expect(wholeDump.warnings.all.contains { $0.message.contains("reading stopped") })
        var joined: [Int64] = []
        var readByParts = 0
        for part in Self.parts {
            var mine: [Int64] = []
            readByParts += try Dump(path: path).forEachDecodedRecord(rows: part) { mine.append($0.rowId) }
            #expect(mine.allSatisfy(part.contains), "part \(part): rows outside it")
            joined += mine
        }
        #expect(joined == whole)
        // The rows each part counts as read (decodable or not) are its own, too.
        #expect(readByParts == wholeRead)
        #expect(whole.count > 100 && wholeRead > 500 && wholeRead < 4000, "\(whole.count) decoded of \(wholeRead) read: the test reads no salvage")
    }

    @Test func recordsOfEachPartAreItsOwn() throws {
        let dir = TestDirectory("row-range-records")
        let path = try Self.damagedQueue(dir)
        var whole: [Int64] = []
        try Dump(path: path).forEachRecord(QueueQuery(), takenFromRow: nil) { whole.append($0.rowId) }
        var joined: [Int64] = []
        for part in Self.parts {
            try Dump(path: path).forEachRecord(QueueQuery(), rows: part, takenFromRow: nil) { record in
                #expect(part.contains(record.rowId))
                joined.append(record.rowId)
            }
        }
        #expect(joined == whole)
    }

    @Test func logEntriesOfEachPartAreTheirOwn() throws {
        let dir = TestDirectory("row-range-log")
        let path = dir.file("bgeo.db")
        try TimelinePipedLogTests.cleanLog(path, seed: 5, rows: 4000)
        for fraction in [0.3, 0.55, 0.8] { try PageDamage.garble(path, at: fraction) }
        var whole: [Int64] = []
        let wholeDump = try Dump(path: path)
        wholeDump.forEachLogEntry(LogQuery(), takenFromCells: nil) { whole.append($0.rowId) }
        #expect(wholeDump.warnings.all.contains { $0.message.contains("reading stopped") })
        var joined: [Int64] = []
        for part in Self.parts {
            try Dump(path: path).forEachLogEntry(LogQuery(), rows: part, takenFromCells: nil) { entry in
                #expect(part.contains(entry.rowId))
                joined.append(entry.rowId)
            }
        }
        #expect(joined == whole)
        #expect(whole.count > 500 && whole.count < 4000, "the damage lost no rows (\(whole.count))")
    }
}
