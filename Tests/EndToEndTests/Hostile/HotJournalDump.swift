import Foundation
@testable import BGeoReader
@testable import BGeoForensics

/// Dumps pulled with a rollback journal beside them, built for real by SQLite, and the judges the
/// hot-journal tests compare the tool with (the `sqlite3` CLI, `sha256sum`).
enum HotJournalDump {
    static let sample = ReportE2E.packageRoot + "/Samples/stranded-refresh.db"

    /// `dir/bgeo.db` + `bgeo.db-journal` as an app killed inside a transaction leaves them: a
    /// rollback-mode copy of the stranded-refresh sample, a transaction that deletes a third of
    /// `log_entries` and renames half the records' uuids to `uncommitted-…`, a 2-page cache so
    /// the changed pages spill into the main file, and both files copied while it is still open.
    /// The main file alone then holds the uncommitted changes; its journal the committed pages.
    static func hot(in dir: TestDirectory) throws -> String {
        let live = dir.file("live.db")
        try FileManager.default.copyItem(atPath: sample, toPath: live)
        let db = try Database(path: live, mode: .readWriteCreate)
        try db.execute("PRAGMA journal_mode = DELETE; PRAGMA cache_size = 2")
        try db.execute("""
            BEGIN; DELETE FROM log_entries WHERE id % 3 = 0;
            UPDATE location_events SET uuid = 'uncommitted-' || uuid,
                json = replace(json, '{"uuid":"', '{"uuid":"uncommitted-') WHERE id % 2 = 0
            """)
        let dump = dir.file("bgeo.db")
        try FileManager.default.copyItem(atPath: live, toPath: dump)
        try FileManager.default.copyItem(atPath: live + "-journal", toPath: dump + "-journal")
        try db.execute("ROLLBACK")
        return dump
    }

    /// `dir/bgeo.db` after a committed transaction in `mode` (PERSIST leaves the journal with its
    /// header zeroed, TRUNCATE leaves it empty): a journal SQLite does not call hot.
    static func committed(in dir: TestDirectory, journalMode: String) throws -> String {
        let dump = dir.file("bgeo.db")
        try FileManager.default.copyItem(atPath: sample, toPath: dump)
        let db = try Database(path: dump, mode: .readWriteCreate)
        try db.execute("PRAGMA journal_mode = \(journalMode); PRAGMA cache_size = 2")
        try db.execute("BEGIN; DELETE FROM log_entries WHERE id % 3 = 0; COMMIT")
        return dump
    }

    /// What SQLite itself reads from `dump` with every companion beside it: the `sqlite3` CLI
    /// runs `sql` on a copy (read-write, so it can roll a hot journal back; never the evidence).
    static func sqlite3(copyOf dump: String, _ sql: String) throws -> String {
        let dir = TestDirectory("sqlite3-judge")
        let copy = dir.file("judge.db")
        for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: dump + suffix) {
            try FileManager.default.copyItem(atPath: dump + suffix, toPath: copy + suffix)
        }
        let result = try ReportE2E.run(ReportE2E.tool("sqlite3") ?? "/usr/bin/sqlite3", [copy, sql])
        return (result.stdout + result.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The committed counts SQLite reports: log rows, records, records renamed by the transaction.
    static func counts(_ dump: String) throws -> (log: Int?, records: Int?, uncommitted: Int?) {
        let lines = try sqlite3(copyOf: dump, "SELECT count(*) FROM log_entries; SELECT count(*) FROM location_events; "
                                + "SELECT count(*) FROM location_events WHERE uuid LIKE 'uncommitted-%'")
            .split(separator: "\n").map { Int($0) }
        guard lines.count == 3 else { return (nil, nil, nil) }
        return (lines[0], lines[1], lines[2])
    }

    /// SHA-256 by `sha256sum` (an independent judge) and the modification time.
    static func fingerprint(_ path: String) throws -> (sha256: String, modified: Date?) {
        let result = try ReportE2E.run(ReportE2E.tool("sha256sum") ?? "/usr/bin/sha256sum", [path])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (String(result.stdout.prefix(64)), attributes[.modificationDate] as? Date)
    }
}
