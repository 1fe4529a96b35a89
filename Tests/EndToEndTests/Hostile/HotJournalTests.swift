import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Trust, round 3, part 4, from the reproduced case: a dump pulled with a hot `-journal` beside it
/// (the app killed inside a transaction, rollback-journal mode) was read from its half-written main
/// file — a third of the log missing, records renamed mid-transaction — with "Warnings: none",
/// while SQLite, honouring the journal, sees the committed state. The journal is now copied and
/// hashed with the dump, the copy is rolled back by SQLite before anything reads it, a warning
/// names the journal, and the evidence (dump and journal) is left byte for byte as it was.
@Suite struct HotJournalTests {
    static func run(_ arguments: [String]) throws -> ToolResult {
        let result = try Hostile.run(arguments)
        #expect(result.exitCode == 0, "\(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    static func inspect(_ dump: String) throws -> JSONValue {
        try JSONParser.parse(try run(["inspect", dump, "--json"]).stdout)
    }

    static func journalWarnings(_ json: JSONValue, _ dump: String) -> [String] {
        (json["warnings"]?.arrayValue ?? []).filter { $0["table"]?.stringValue == dump + "-journal" }
            .compactMap { $0["message"]?.stringValue }
    }

    static let rolledBack = "a hot journal of an unfinished transaction; its changes were rolled back in the private copy, "
        + "the committed state is read"

    @Test func aHotJournalIsRolledBackAndEveryCommandReadsTheCommittedState() throws {
        let dir = TestDirectory("hot-journal")
        let dump = try HotJournalDump.hot(in: dir)
        // The case is real: the main file alone holds the unfinished transaction's changes.
        let alone = dir.file("alone.db")
        try FileManager.default.copyItem(atPath: dump, toPath: alone)
        let half = try HotJournalDump.counts(alone)
        let committed = try HotJournalDump.counts(dump)
        #expect(committed.log == 1734 && committed.records == 400 && committed.uncommitted == 0, "\(committed)")
        #expect(half.log == 1156 && (half.uncommitted ?? 0) > 0, "the main file alone is half-written: \(half)")
        let before = (dump: try HotJournalDump.fingerprint(dump), journal: try HotJournalDump.fingerprint(dump + "-journal"))

        let json = try Self.inspect(dump)
        #expect(json["log"]?["count"]?.intValue == committed.log)
        #expect(json["queue"]?["count"]?.intValue == committed.records)
        #expect(Self.journalWarnings(json, dump) == [Self.rolledBack], "\(String(describing: json["warnings"]))")
        let inputs = json["inputs"]?.arrayValue ?? []
        #expect(inputs.map { $0["path"]?.stringValue } == [dump, dump + "-journal"])
        #expect(inputs.last?["sha256"]?.stringValue == before.journal.sha256)
        let journalBytes = try FileManager.default.attributesOfItem(atPath: dump + "-journal")[.size] as? Int
        #expect(inputs.last?["bytes"]?.intValue == journalBytes)

        let text = try Self.run(["inspect", dump]).stdout
        #expect(text.contains("  \(dump)-journal  \(journalBytes ?? -1) bytes  sha256 \(before.journal.sha256)"), "\(text)")
        #expect(text.contains("\(dump)-journal: \(Self.rolledBack)"))
        #expect(text.contains("Log: \(committed.log ?? -1) rows"))

        let timeline = try JSONParser.parse(try Self.run(["timeline", dump, "--json"]).stdout)
        #expect(timeline["logRows"]?.intValue == committed.log)
        #expect(timeline["inputs"]?.arrayValue?.count == 2)

        let locations = try Self.run(["locations", dump, "--format", "ndjson"])
        let records = locations.stdout.split(separator: "\n")
        #expect(records.count == committed.records)
        #expect(!locations.stdout.contains("uncommitted-"), "no record as the unfinished transaction renamed it")
        #expect(locations.stderr.contains("\(dump)-journal: \(Self.rolledBack)"), "\(locations.stderr)")

        let logs = try Self.run(["logs", dump, "--limit", "0", "--format", "ndjson"])
        #expect(logs.stdout.split(separator: "\n").count == committed.log)
        #expect(logs.stderr.contains("\(dump)-journal: \(Self.rolledBack)"))

        // The evidence: never written, and the journal still there.
        #expect(FileManager.default.fileExists(atPath: dump + "-journal"))
        #expect(try HotJournalDump.fingerprint(dump) == before.dump)
        #expect(try HotJournalDump.fingerprint(dump + "-journal") == before.journal)
        #expect(Hostile.entries(dir.path) == ["alone.db", "bgeo.db", "bgeo.db-journal", "live.db"], "nothing created beside the dump")
    }

    @Test(arguments: ["PERSIST", "TRUNCATE"])
    func aJournalThatIsNotHotIsListedButGivesNoRollbackWarning(journalMode: String) throws {
        let dir = TestDirectory("cold-journal")
        let dump = try HotJournalDump.committed(in: dir, journalMode: journalMode)
        let journal = try Data(contentsOf: URL(fileURLWithPath: dump + "-journal"))
        #expect(journalMode == "TRUNCATE" ? journal.isEmpty : journal.prefix(28).allSatisfy { $0 == 0 },
                "\(journalMode) leaves \(journal.count) bytes, header \(Array(journal.prefix(8)))")
        let committed = try HotJournalDump.counts(dump)
        let json = try Self.inspect(dump)
        #expect(json["warnings"]?.arrayValue?.isEmpty == true, "\(String(describing: json["warnings"]))")
        #expect(json["log"]?["count"]?.intValue == committed.log)
        let inputs = json["inputs"]?.arrayValue ?? []
        #expect(inputs.map { $0["path"]?.stringValue } == [dump, dump + "-journal"])
        #expect(inputs.last?["sha256"]?.stringValue == (try HotJournalDump.fingerprint(dump + "-journal")).sha256)
    }

    @Test func aJournalWithAZeroedHeaderIsNotRolledBackAsSQLiteDecides() throws {
        let dir = TestDirectory("zeroed-journal")
        let dump = try HotJournalDump.hot(in: dir)
        try Self.overwrite(dump + "-journal", at: 0, with: [UInt8](repeating: 0, count: 28))
        let sqlite = try HotJournalDump.counts(dump)
        #expect(sqlite.log == 1156, "SQLite reads the main file as it is: \(sqlite)")
        let json = try Self.inspect(dump)
        #expect(Self.journalWarnings(json, dump).isEmpty, "\(String(describing: json["warnings"]))")
        #expect(json["log"]?["count"]?.intValue == sqlite.log)
        #expect(json["inputs"]?.arrayValue?.count == 2)
    }

    @Test func aJournalWithoutAJournalHeaderIsDiscardedAsSQLiteDoes() throws {
        let dir = TestDirectory("garbage-journal")
        let dump = try HotJournalDump.hot(in: dir)
        try Self.overwrite(dump + "-journal", at: 0, with: Array("not a journal".utf8))
        let sqlite = try HotJournalDump.counts(dump)
        let json = try Self.inspect(dump)
        #expect(json["log"]?["count"]?.intValue == sqlite.log, "as SQLite reads it: \(sqlite)")
        #expect(Self.journalWarnings(json, dump) == ["not a valid journal (its header is not a rollback journal's), so SQLite "
            + "discarded it unread; the main file is read as it is"])
    }

    /// A journal naming a super-journal that is not there belongs to a multi-database transaction
    /// that had committed (SQLite deletes the super-journal last): SQLite does not roll it back.
    @Test func aJournalWhoseSuperJournalIsGoneIsNotRolledBackAsSQLiteDecides() throws {
        let dir = TestDirectory("super-journal")
        let dump = try HotJournalDump.hot(in: dir)
        let name = Array("/data/user/0/app/databases/bgeo.db-mj4F2A91C0".utf8)
        let sum = name.reduce(UInt32(0)) { $0 &+ UInt32($1) }
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        // pager.c writeSuperJournal: lock-page number, name, its length, its checksum, the magic.
        let record = be32(0x4000_0000 / 4096 + 1) + name + be32(UInt32(name.count)) + be32(sum) + [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
        let size = try FileManager.default.attributesOfItem(atPath: dump + "-journal")[.size] as? Int ?? 0
        try Self.overwrite(dump + "-journal", at: size, with: record)
        let sqlite = try HotJournalDump.counts(dump)
        #expect(sqlite.log == 1156, "SQLite takes the transaction as committed: \(sqlite)")
        let json = try Self.inspect(dump)
        #expect(json["log"]?["count"]?.intValue == sqlite.log)
        #expect(Self.journalWarnings(json, dump).first?.hasPrefix("the journal of a transaction over several databases whose "
            + "super-journal (/data/user/0/app/databases/bgeo.db-mj4F2A91C0) is not here") == true,
                "\(String(describing: json["warnings"]))")
    }

    /// Should not happen (a database is in one journal mode); SQLite rolls the journal back first,
    /// then reads the -wal over it, and so does the tool.
    @Test func aHotJournalBesideAWALIsRolledBackFirstThenTheWALApplied() throws {
        let dir = TestDirectory("journal-and-wal")
        let dump = try HotJournalDump.hot(in: dir)
        // A WAL of the committed state, with 10 more log rows only in it.
        let other = TestDirectory("journal-and-wal-source")
        let source = other.file("c.db")
        try FileManager.default.copyItem(atPath: HotJournalDump.sample, toPath: source)
        let db = try Database(path: source, mode: .readWriteCreate)
        try db.execute("PRAGMA journal_mode = WAL")
        try db.setNoCheckpointOnClose()
        try db.execute("INSERT INTO log_entries (ts, level, src, event, message, data, uploaded) "
                       + "SELECT ts, level, src, 'wal.only', message, data, 0 FROM log_entries ORDER BY id DESC LIMIT 10")
        try FileManager.default.copyItem(atPath: source + "-wal", toPath: dump + "-wal")
        let sqlite = try HotJournalDump.counts(dump)
        #expect(sqlite.log == 1744 && sqlite.uncommitted == 0, "SQLite: the committed state, then the WAL: \(sqlite)")
        let json = try Self.inspect(dump)
        #expect(json["log"]?["count"]?.intValue == sqlite.log)
        #expect(json["inputs"]?.arrayValue?.map { $0["path"]?.stringValue } == [dump, dump + "-wal", dump + "-journal"])
        #expect(Self.journalWarnings(json, dump) == [Self.rolledBack + " (a -wal is beside it too, which a database in one "
            + "journal mode never leaves: as SQLite does, the journal was rolled back first, then the -wal applied)"])
        #expect(!FileManager.default.fileExists(atPath: dump + "-shm"), "nothing created beside the dump")
    }

    @Test func aFIFOBesideTheDumpAsItsJournalIsLeftOut() throws {
        let dir = TestDirectory("fifo-journal")
        let dump = try Hostile.dump(at: dir.file("bgeo.db"))
        try #require(mkfifo(dump + "-journal", 0o600) == 0)
        let started = Date()
        let json = try Self.inspect(dump)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(Self.journalWarnings(json, dump).contains { $0.contains("named pipe (FIFO), not a regular file, so it was not read") },
                "\(String(describing: json["warnings"]))")
        #expect(json["queue"]?["count"]?.intValue == 5)
    }

    static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }
}
