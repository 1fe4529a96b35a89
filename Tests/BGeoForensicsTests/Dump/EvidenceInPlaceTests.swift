import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// A whole dump with no -wal and no -journal is read where it lies, through the descriptor the
/// reader holds and SQLite's immutable, read-only evidence VFS; anything else is copied first.
@Suite struct EvidenceInPlaceTests {
    static func companions(_ path: String) -> [String] {
        EvidenceCopy.companionSuffixes.map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    static func privateFiles(_ dump: Dump) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dump.privateFolder)) ?? []
    }

    @Test func aWholeDumpIsReadWhereItLiesAndNothingIsWritten() throws {
        let dir = TestDirectory("in-place-whole")
        let path = dir.file("bgeo.db")
        try Fixtures.current(at: path).close()
        let before = try EvidenceCopy.sha256(ofFile: path)
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        let dump = try Dump(path: path)
        #expect(dump.privateCopy.readsInPlace)
        #expect(!EvidenceInPlaceTests.privateFiles(dump).contains("dump.db"), "\(EvidenceInPlaceTests.privateFiles(dump))")
        var records = 0
        dump.forEachRecord { _ in records += 1 }
        #expect(records == 6)
        #expect(dump.warnings.all.isEmpty)
        #expect(dump.inputs.first?.sha256 == before)
        #expect(EvidenceInPlaceTests.companions(path).isEmpty, "SQLite made \(EvidenceInPlaceTests.companions(path)) beside the evidence")
        #expect(try EvidenceCopy.sha256(ofFile: path) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == modified)
    }

    /// The connection cannot write, even when told it may: the VFS has no way to.
    @Test func theEvidenceConnectionCannotWrite() throws {
        let dir = TestDirectory("in-place-readonly")
        let path = dir.file("bgeo.db")
        try Fixtures.current(at: path).close()
        let before = try EvidenceCopy.sha256(ofFile: path)
        let dump = try Dump(path: path)
        #expect(dump.privateCopy.readsInPlace)
        try dump.database.execute("PRAGMA query_only = 0")
        #expect(throws: SQLiteError.self) { try dump.database.execute("CREATE TABLE intruder (x)") }
        #expect(throws: SQLiteError.self) { try dump.database.execute("DELETE FROM location_events") }
        #expect(EvidenceInPlaceTests.companions(path).isEmpty)
        #expect(try EvidenceCopy.sha256(ofFile: path) == before)
    }

    /// The name is looked up once: a file put in its place afterwards is never read.
    @Test func theDescriptorsFileIsReadWhateverHappensToItsName() throws {
        let dir = TestDirectory("in-place-renamed")
        let path = dir.file("bgeo.db")
        try Fixtures.current(at: path).close()
        let dump = try Dump(path: path)
        #expect(dump.privateCopy.readsInPlace)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
        let impostor = try DumpWriter(path: path, layout: .current)
        try impostor.insertRecord(Fixtures.record(1))
        try impostor.close()
        // A second connection (as the scan runner makes) opens the same held file too.
        let second = try dump.parallelReader()
        for reader in [dump, second] {
            var records = 0
            reader.forEachRecord { _ in records += 1 }
            #expect(records == 6)
        }
    }

    /// A database whose header says WAL, closed cleanly (no -wal left), reads in place: SQLite's
    /// immutable mode reads the main file alone and makes no -wal or -shm.
    @Test func aWALModeHeaderWithoutItsWALIsReadInPlace() throws {
        let dir = TestDirectory("in-place-wal-header")
        let path = dir.file("bgeo.db")
        let writer = try DumpWriter(path: path, layout: .current, wal: true)
        for i in 1...4 { try writer.insertRecord(Fixtures.record(i)) }
        try writer.close()
        try writer.checkpoint()
        let header = try #require(FileHandle(forReadingAtPath: path)?.readData(ofLength: 20))
        #expect(header[18] == 2 && header[19] == 2, "the header says WAL")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let dump = try Dump(path: path)
        #expect(dump.privateCopy.readsInPlace)
        var records = 0
        dump.forEachRecord { _ in records += 1 }
        #expect(records == 4)
        #expect(EvidenceInPlaceTests.companions(path).isEmpty)
    }

    /// A -journal (even an empty one) or a cut file takes the copy's path, where SQLite and the
    /// repairs may write.
    @Test func aDumpWithAJournalOrCutShortIsCopied() throws {
        let dir = TestDirectory("in-place-copied")
        let journalled = dir.file("journalled.db")
        try Fixtures.current(at: journalled).close()
        try Data().write(to: URL(fileURLWithPath: journalled + "-journal"))
        let copied = try Dump(path: journalled)
        #expect(!copied.privateCopy.readsInPlace)
        #expect(EvidenceInPlaceTests.privateFiles(copied).contains("dump.db"))

        // Enough rows that the last page is a table's, not the schema's.
        let cut = dir.file("cut.db")
        let writer = try DumpWriter(path: cut, layout: .current)
        for i in 1...300 { try writer.insertRecord(Fixtures.record(i)) }
        try writer.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: cut)[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: cut))
        try handle.truncate(atOffset: UInt64(size - 100))
        try handle.close()
        let repaired = try Dump(path: cut)
        #expect(!repaired.privateCopy.readsInPlace)
        #expect(repaired.warnings.all.contains { $0.message.contains("truncated") })
    }

    /// Read in place or from a copy, the same dump gives the same timeline, byte for byte.
    @Test func inPlaceAndCopyReadTheSame() throws {
        func timeline(_ inPlace: Bool) throws -> String {
            let dump = try Dump(path: ReportFixture.dumpPath, readsInPlace: inPlace)
            #expect(dump.privateCopy.readsInPlace == inPlace)
            return TimelineBuilder(dump: dump).build().json().jsonText
        }
        #expect(try timeline(true) == (try timeline(false)))
    }
}
