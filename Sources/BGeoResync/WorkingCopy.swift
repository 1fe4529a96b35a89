import Foundation
import BGeoForensics
import BGeoSQLite

/// The SQLite file re-sync drains: a copy of the dump's queue and log rows plus re-sync's own
/// tables (quarantine, journal, auth, progress). The evidence is never written; every state
/// transition is one transaction, so a killed run re-sends at most the batch that was in flight.
public final class WorkingCopy {
    public let path: String
    let database: Database
    /// Prepared once per connection: a drain runs the same few statements per request.
    private var statements: [String: Statement] = [:]
    /// Every queued row with an id up to this one was delivered. Delivered batches are always the
    /// oldest queued rows, so one id records a delivery: the commit that ends a request writes only
    /// the journal line, which carries it (`journal.delivered_through`) — one page, where a
    /// separate progress row cost a second page (a WAL frame and two writes) per request — and
    /// no per-row delete on the request path either (a dozen pages plus the delete work). The
    /// rows themselves are purged, and `progress.delivered_through` brought up to date, when the
    /// drain ends and when a copy is opened after a killed run; every query of the queue skips
    /// them meanwhile.
    var deliveredThrough: Int64 = 0
    /// Rows up to this id are gone from the table (purged this session).
    var purgedThrough: Int64 = 0
    /// Set by `markDelivered` inside a transaction; becomes `deliveredThrough` once committed.
    var pendingDeliveredThrough: Int64?
    /// The journal line written in the transaction under way (its rowid), which a delivery marks.
    var journaledRow: Int64?

    /// The redacted headers JSON of the last journaled request: a drain journals thousands of
    /// requests with the same headers, and redaction scans every value for secrets.
    var journaledHeaders: (headers: [HTTPHeader], redactor: Redactor, text: String)?

    func cached(_ sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try database.prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// Why a working copy cannot be used.
    public struct Mismatch: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// One queued row of the working copy.
    public struct Row: Sendable, Equatable {
        public var id: Int64
        public var uuid: String
        public var json: String
        public var attempts: Int
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE IF NOT EXISTS queue (
          id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, json TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS log_entries (
          id INTEGER PRIMARY KEY, ts TEXT NOT NULL, level INTEGER NOT NULL, src TEXT NOT NULL, event TEXT NOT NULL,
          message TEXT, data TEXT, uploaded INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS quarantine (
          id INTEGER PRIMARY KEY AUTOINCREMENT, row_id INTEGER, uuid TEXT NOT NULL, json TEXT NOT NULL,
          status INTEGER NOT NULL, response TEXT, reason TEXT NOT NULL, at TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS journal (
          id INTEGER PRIMARY KEY, at TEXT NOT NULL, lane TEXT NOT NULL, method TEXT NOT NULL,
          url TEXT NOT NULL, uuids TEXT, count INTEGER NOT NULL, headers TEXT, request TEXT, bytes INTEGER NOT NULL,
          request_sha256 TEXT,
          status INTEGER NOT NULL, response TEXT, ms INTEGER NOT NULL, attempt INTEGER NOT NULL, outcome TEXT NOT NULL,
          error TEXT, location TEXT, delivered_through INTEGER);
        CREATE TABLE IF NOT EXISTS auth (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE IF NOT EXISTS secrets (value TEXT PRIMARY KEY);
        CREATE TABLE IF NOT EXISTS progress (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """

    /// Opens the working copy at `path`, creating it from `dump` when missing. An existing copy
    /// must carry the same dump hash (else `Mismatch`). Creation writes to a side file renamed
    /// into place at the end, so a run killed while copying leaves no half copy behind.
    /// `path` may be `:memory:` (dry runs).
    public init(path: String, dump: Dump, warn: (String) -> Void = { _ in }) throws {
        self.path = path
        let hash = WorkingCopy.dumpHash(dump)
        let fm = FileManager.default
        if path != ":memory:", fm.fileExists(atPath: path) {
            database = try Database(path: path, mode: .readWriteCreate)
            try WorkingCopy.configure(database)
            try database.execute(WorkingCopy.schema)
            try WorkingCopy.addJournalColumns(database)
            let recorded = try WorkingCopy.meta(database, "dump_sha256")
            guard recorded == hash else {
                throw Mismatch(description: "\(path) is the working copy of another dump (sha256 \(recorded ?? "unknown"), "
                    + "this dump is \(hash)); choose another --work folder")
            }
            deliveredThrough = max(try WorkingCopy.progress(database, "delivered_through"),
                                   try WorkingCopy.lastJournaledDelivery(database))
            try purgeDelivered()
            return
        }
        let building = path == ":memory:" ? path : path + ".partial"
        if building != ":memory:" {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: building + suffix) }
        }
        if building != ":memory:" {
            let db = try Database(path: building, mode: .readWriteCreate)
            // 16 KiB pages, set before the file has any: a journal line carries the batch's uuid
            // list (4 KB for 100 SDK uuids), which on 4 KiB pages spilled into an overflow page and
            // split a leaf on nearly every commit (two or three WAL frames per request); on 16 KiB
            // pages a commit is one frame.
            try db.execute("PRAGMA page_size = 16384")
            try WorkingCopy.configure(db)
            try db.execute(WorkingCopy.schema)
            try WorkingCopy.fill(db, from: dump, hash: hash, warn: warn)
            if building != ":memory:" {
                try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                try db.execute("PRAGMA journal_mode = DELETE")
            }
        }
        if building != ":memory:" {
            try fm.moveItem(atPath: building, toPath: path)
            database = try Database(path: path, mode: .readWriteCreate)
            try WorkingCopy.configure(database)
        } else {
            // The in-memory copy must keep its one connection: rebuild it here.
            database = try Database(path: ":memory:", mode: .readWriteCreate)
            try database.execute(WorkingCopy.schema)
            try WorkingCopy.fill(database, from: dump, hash: hash, warn: warn)
        }
    }

    /// Copies made before the journal had `error` (why there was no response), `location` (a
    /// redirect's target) and `delivered_through` get the columns, empty for their old lines.
    private static func addJournalColumns(_ db: Database) throws {
        let info = try db.prepare("SELECT name FROM pragma_table_info('journal')")
        var columns: Set<String> = []
        while try info.step() { columns.insert(info.text(0) ?? "") }
        for (column, type) in [("error", "TEXT"), ("location", "TEXT"), ("delivered_through", "INTEGER")] where !columns.contains(column) {
            try db.execute("ALTER TABLE journal ADD COLUMN \(column) \(type)")
        }
    }

    /// The `delivered_through` of the newest journal line that delivered a batch (0 when none).
    private static func lastJournaledDelivery(_ db: Database) throws -> Int64 {
        let stmt = try db.prepare("SELECT delivered_through FROM journal WHERE delivered_through IS NOT NULL ORDER BY id DESC LIMIT 1")
        return try stmt.step() ? stmt.int64(0) : 0
    }

    private static func configure(_ db: Database) throws {
        if db.path != ":memory:" {
            // One process owns a working copy: exclusive locking keeps the WAL index in memory
            // (no -shm, no lock syscalls per transaction) and makes a second concurrent run on
            // the same copy fail instead of interleaving with this one.
            try db.execute("PRAGMA busy_timeout = 200")
            try db.execute("PRAGMA locking_mode = EXCLUSIVE")
            // WAL + NORMAL: each commit survives a killed process (kill -9 included: the WAL
            // frames are in the OS page cache once write() returns) without an fsync per request.
            // Only an OS crash or power loss can lose the last commits before a checkpoint; those
            // records then stay queued and are re-sent (duplicates, never losses).
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = NORMAL")
            // Debian builds SQLite with SECURE_DELETE on: every delivered row would be zeroed and
            // its freed pages rewritten. The evidence holds the same rows anyway.
            try db.execute("PRAGMA secure_delete = OFF")
            // Checkpoints are the only fsyncs in WAL/NORMAL: every 16k pages, not every 1k.
            try db.execute("PRAGMA wal_autocheckpoint = 16384")
            // Reads through a memory map: the queue is read once, in order, page by page, and
            // each page was a pread() call. Writes still go through the WAL as before.
            try db.execute("PRAGMA mmap_size = 268435456")
        }
    }

    /// The dump's identity: the SHA-256 of its main file, and of the -wal when there is one.
    public static func dumpHash(_ dump: Dump) -> String {
        let main = dump.inputs.first?.sha256 ?? ""
        guard let wal = dump.inputs.first(where: { $0.path.hasSuffix("-wal") }) else { return main }
        return main + "+" + wal.sha256.prefix(16)
    }

    /// Default folder name: `<first 16 hex of the dump's sha256>.resync`.
    public static func defaultFolder(_ dump: Dump) -> String {
        String((dump.inputs.first?.sha256 ?? "dump").prefix(16)) + ".resync"
    }

    private static func fill(_ db: Database, from dump: Dump, hash: String, warn: (String) -> Void) throws {
        try db.transaction {
            let setMeta = try db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
            try setMeta.run([.text("dump_sha256"), .text(hash)])
            try setMeta.run([.text("dump_path"), .text(dump.path)])
            try setMeta.run([.text("format"), .text(dump.layout.format.rawValue)])
            try setMeta.run([.text("created_at"), .text(Timestamp.format(Date().timeIntervalSince1970))])
            let insert = try db.prepare("INSERT OR IGNORE INTO queue(id, uuid, json, attempts) VALUES (?, ?, ?, ?)")
            var copyError: Error?
            dump.forEachQueueRow { row in
                guard copyError == nil else { return }
                do {
                    try insert.run([.integer(row.rowId), .text(row.uuid), .text(row.json), .integer(Int64(row.attempts ?? 0))])
                } catch { copyError = error }
            }
            if let copyError { throw copyError }
            // A record that is not a JSON object would make the whole request invalid: it is kept
            // aside in quarantine (listed, exportable), never sent, never lost. SQLite's own
            // json_valid checks every row in C, far faster than parsing each in Swift.
            let bad = try db.prepare("""
                SELECT id, uuid FROM queue WHERE CASE WHEN json_valid(json) THEN json_type(json) != 'object' ELSE 1 END ORDER BY id
                """)
            var badIds: [Int64] = []
            while try bad.step() {
                badIds.append(bad.int64(0))
                warn("\(dump.queueTableName) row \(bad.int64(0)) (\(bad.text(1) ?? "")): record JSON does not parse; quarantined, not sent")
            }
            let now = Timestamp.format(Date().timeIntervalSince1970)
            let quarantine = try db.prepare("""
                INSERT INTO quarantine(row_id, uuid, json, status, response, reason, at)
                SELECT id, uuid, json, 0, NULL, 'record JSON does not parse', ? FROM queue WHERE id = ?
                """)
            let remove = try db.prepare("DELETE FROM queue WHERE id = ?")
            for id in badIds {
                try quarantine.run([.text(now), .integer(id)])
                try remove.run([.integer(id)])
            }
            let log = try db.prepare("""
                INSERT OR IGNORE INTO log_entries(id, ts, level, src, event, message, data, uploaded) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            dump.forEachLogEntry { entry in
                guard copyError == nil else { return }
                do {
                    try log.run([.integer(entry.rowId), .text(entry.tsText), .integer(Int64(entry.level)), .text(entry.src),
                                 .text(entry.event), entry.message.map { .text($0) } ?? .null,
                                 entry.dataText.map { .text($0) } ?? .null, .integer(entry.uploaded ? 1 : 0)])
                } catch { copyError = error }
            }
            if let copyError { throw copyError }
        }
    }

    static func meta(_ db: Database, _ key: String) throws -> String? {
        let stmt = try db.prepare("SELECT value FROM meta WHERE key = ?")
        try stmt.bind([.text(key)])
        return try stmt.step() ? stmt.text(0) : nil
    }

    public func meta(_ key: String) throws -> String? { try WorkingCopy.meta(database, key) }
}
