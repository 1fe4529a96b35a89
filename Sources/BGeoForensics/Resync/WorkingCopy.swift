import Foundation

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
    private(set) var deliveredThrough: Int64 = 0
    /// Rows up to this id are gone from the table (purged this session).
    private var purgedThrough: Int64 = 0
    /// Set by `markDelivered` inside a transaction; becomes `deliveredThrough` once committed.
    private var pendingDeliveredThrough: Int64?
    /// The journal line written in the transaction under way (its rowid), which a delivery marks.
    private var journaledRow: Int64?

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

    // MARK: queue

    /// The next `limit` rows oldest first (nil = all).
    public func nextBatch(limit: Int?) throws -> [Row] {
        try nextBatch(after: deliveredThrough, limit: limit)
    }

    /// Deletes the rows of delivered batches (ids up to `deliveredThrough`) in one transaction.
    /// The engine calls it once a drain ends; opening a copy calls it too, so rows a killed run
    /// had delivered never linger. When nothing undelivered is left the table is cleared whole,
    /// which SQLite does page by page instead of row by row (a per-batch delete cost ~1 µs per row
    /// on the request path).
    public func purgeDelivered() throws {
        guard deliveredThrough > purgedThrough else { return }
        let through = deliveredThrough
        try transaction {
            try setProgress("delivered_through", through)
            let undelivered = try cached("SELECT EXISTS (SELECT 1 FROM queue WHERE id > ?)")
            try undelivered.bind([.integer(through)])
            let anyLeft = try undelivered.step() && undelivered.int(0) != 0
            try undelivered.bind([])  // reset: no statement may stay active across the commit
            if anyLeft {
                try cached("DELETE FROM queue WHERE id <= ?").run([.integer(through)])
            } else {
                try cached("DELETE FROM queue").run()
            }
        }
        purgedThrough = through
    }

    /// The batch's rows as delivered: `delivered_through` moves to its last id (in the caller's
    /// transaction; effective once it commits), kept on the journal line of that transaction
    /// when there is one (the page the commit writes anyway), else in `progress`.
    func markDelivered(_ rows: [Row]) throws {
        guard let first = rows.first, let last = rows.last else { return }
        // A batch is always the oldest queued rows: anything else means the queue changed
        // underneath the run, and the caller's transaction rolls back whole.
        guard first.id > (pendingDeliveredThrough ?? deliveredThrough) else {
            throw Mismatch(description: "queue rows \(first.id)…\(last.id) were already delivered; nothing was committed")
        }
        if let row = journaledRow {
            try cached("UPDATE journal SET delivered_through = ? WHERE id = ?").run([.integer(last.id), .integer(row)])
        } else {
            // UPDATE, not INSERT OR REPLACE: a replace rewrites the key's index page too.
            try cached("UPDATE progress SET value = ? WHERE key = 'delivered_through'").run([.integer(last.id)])
            if database.changes == 0 { try setProgress("delivered_through", last.id) }
        }
        pendingDeliveredThrough = last.id
    }

    private static func progress(_ db: Database, _ key: String) throws -> Int64 {
        let stmt = try db.prepare("SELECT value FROM progress WHERE key = ?")
        try stmt.bind([.text(key)])
        return try stmt.step() ? stmt.int64(0) : 0
    }

    /// The `limit` queued rows after `id` (and after every delivered row), oldest first: the
    /// batch that follows one in flight.
    public func nextBatch(after id: Int64, limit: Int?) throws -> [Row] {
        let stmt = try cached("SELECT id, uuid, json, attempts FROM queue WHERE id > ? ORDER BY id LIMIT ?")
        try stmt.bind([.integer(max(id, deliveredThrough)), .integer(Int64(limit ?? -1))])
        var rows: [Row] = []
        while try stmt.step() {
            rows.append(Row(id: stmt.int64(0), uuid: stmt.text(1) ?? "", json: stmt.text(2) ?? "", attempts: stmt.int(3)))
        }
        return rows
    }

    public func count(_ table: String, where condition: String = "1") throws -> Int {
        let stmt = try database.prepare("SELECT count(*) FROM \(table) WHERE \(condition)")
        return try stmt.step() ? stmt.int(0) : 0
    }

    /// Queued rows not yet delivered.
    /// The fast path of a drain: like `nextBatch(after:limit:)`, but each record's stored UTF-8
    /// is appended to `body` (comma-separated) instead of becoming a String, and the rows carry
    /// an empty `json`. Bytes that are not plain ASCII go through the same UTF-8 repair as the
    /// String path, so the body is byte-identical to `RequestBuilder.locationBodyBytes`.
    /// `append` turns one record's (valid UTF-8) bytes into its upload bytes
    /// (`RequestBuilder.appendStoredRecord`: as stored, or with config extras merged).
    func nextBatch(after id: Int64, limit: Int?, appendingRecordsTo body: inout [UInt8],
                   using append: (UnsafeBufferPointer<UInt8>, inout [UInt8]) -> Void) throws -> [Row] {
        let stmt = try cached("SELECT id, uuid, json, attempts FROM queue WHERE id > ? ORDER BY id LIMIT ?")
        try stmt.bind([.integer(max(id, deliveredThrough)), .integer(Int64(limit ?? -1))])
        var rows: [Row] = []
        while try stmt.step() {
            if !rows.isEmpty { body.append(UInt8(ascii: ",")) }
            stmt.withUTF8(2) { bytes in
                guard let bytes else { return }
                if WorkingCopy.isASCII(bytes) {
                    append(bytes, &body)
                } else {
                    var repaired = String(decoding: bytes, as: UTF8.self)
                    repaired.withUTF8 { append($0, &body) }
                }
            }
            rows.append(Row(id: stmt.int64(0), uuid: stmt.text(1) ?? "", json: "", attempts: stmt.int(3)))
        }
        return rows
    }

    /// True when no byte has its high bit set (8 bytes per step: this runs over every record).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var bits: UInt64 = 0
        var i = 0
        while i + 8 <= bytes.count {
            bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            bits |= UInt64(base[i])
            i += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    public var remaining: Int { (try? count("queue", where: "id > \(deliveredThrough)")) ?? 0 }
    public var pendingLogs: Int { (try? count("log_entries", where: "uploaded = 0")) ?? 0 }

    // MARK: progress counters and auth

    /// Records delivered over every run of this working copy (from the journal, so a delivery
    /// costs no extra page write).
    public func deliveredTotal() throws -> Int {
        let stmt = try cached("SELECT coalesce(sum(count), 0) FROM journal WHERE lane = 'locations' AND outcome = 'delivered'")
        try stmt.bind([])
        let value = try stmt.step() ? stmt.int(0) : 0
        try stmt.bind([])
        return value
    }

    public func progress(_ key: String) throws -> Int64 {
        let stmt = try cached("SELECT value FROM progress WHERE key = ?")
        try stmt.bind([.text(key)])
        let value = try stmt.step() ? stmt.int64(0) : 0
        try stmt.bind([])  // reset: a cached statement must not hold a read transaction open
        return value
    }

    func setProgress(_ key: String, _ value: Int64) throws {
        try cached("INSERT OR REPLACE INTO progress(key, value) VALUES (?, ?)").run([.text(key), .integer(value)])
    }

    /// The token pair last stored (rotated by a refresh), if any.
    public func storedTokens() throws -> TokenRefresh.Tokens? {
        let stmt = try database.prepare("SELECT key, value FROM auth")
        var tokens = TokenRefresh.Tokens(accessToken: nil, refreshToken: nil)
        var any = false
        while try stmt.step() {
            any = true
            switch stmt.text(0) {
            case "accessToken": tokens.accessToken = stmt.text(1)
            case "refreshToken": tokens.refreshToken = stmt.text(1)
            default: break
            }
        }
        return any ? tokens : nil
    }

    func storeTokens(_ tokens: TokenRefresh.Tokens) throws {
        let stmt = try database.prepare("INSERT OR REPLACE INTO auth(key, value) VALUES (?, ?)")
        try stmt.run([.text("accessToken"), tokens.accessToken.map { .text($0) } ?? .null])
        try stmt.run([.text("refreshToken"), tokens.refreshToken.map { .text($0) } ?? .null])
        try stmt.run([.text("rotated_at"), .text(Timestamp.format(Date().timeIntervalSince1970))])
    }

    /// Secrets a run learned that the dump itself does not hold (tokens issued by a refresh,
    /// tokens and keys given with `--set` / `--config`): kept here so that every later command
    /// on this working copy redacts them too, whatever it prints. The copy already holds the
    /// rotated pair itself (`auth`), so this adds no new exposure.
    public func learnedSecrets() throws -> [String] {
        let stmt = try database.prepare("SELECT value FROM secrets ORDER BY value")
        var out: [String] = []
        while try stmt.step() { if let value = stmt.text(0) { out.append(value) } }
        return out
    }

    /// Teaches `redactor` every secret this working copy knows: those learned by earlier runs and
    /// the stored (rotated) token pair. Every command that reads the copy calls it first.
    public func learnSecrets(into redactor: inout Redactor) throws {
        for secret in try learnedSecrets() { redactor.learn(secret: secret) }
        if let stored = try storedTokens() {
            for token in [stored.accessToken, stored.refreshToken].compactMap({ $0 }) { redactor.learn(secret: token) }
        }
    }

    /// Records every secret `redactor` knows beyond what `dump` (a redactor built from the dump)
    /// knows. In the caller's transaction when there is one.
    func remember(secretsOf redactor: Redactor, beyond dump: Redactor) throws {
        let stmt = try cached("INSERT OR IGNORE INTO secrets(value) VALUES (?)")
        for secret in redactor.knownSecrets.subtracting(dump.knownSecrets).sorted() { try stmt.run([.text(secret)]) }
    }

    /// `remember(secretsOf:beyond:)` in a transaction of its own.
    public func rememberSecrets(of redactor: Redactor, beyond dump: Redactor) throws {
        try transaction { try remember(secretsOf: redactor, beyond: dump) }
    }

    // MARK: transitions (each caller wraps them in one transaction)

    /// Like `Database.transaction`, with BEGIN/COMMIT prepared once instead of compiled per request.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try cached("BEGIN IMMEDIATE").run()
        pendingDeliveredThrough = nil
        journaledRow = nil
        defer { journaledRow = nil }
        do {
            let value = try body()
            try cached("COMMIT").run()
            if let pending = pendingDeliveredThrough { deliveredThrough = pending }
            pendingDeliveredThrough = nil
            return value
        } catch {
            pendingDeliveredThrough = nil
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    func quarantine(_ rows: [Row], status: Int, response: String?, reason: String) throws {
        // The record text is copied from the queue row itself: a batch prepared as bytes
        // (`nextBatch(after:limit:appendingRecordsTo:)`) carries no text in its rows.
        let stmt = try cached("""
            INSERT INTO quarantine(row_id, uuid, json, status, response, reason, at)
            SELECT id, uuid, json, ?, ?, ?, ? FROM queue WHERE id = ?
            """)
        let now = Timestamp.format(Date().timeIntervalSince1970)
        for row in rows {
            try stmt.run([.integer(Int64(status)), response.map { .text($0) } ?? .null, .text(reason), .text(now), .integer(row.id)])
            guard database.changes == 1 else {
                throw Mismatch(description: "queue row \(row.id) (\(row.uuid)) vanished before its quarantine; nothing was committed")
            }
        }
        // Row by row: quarantined rows may be any subset of a batch (LongPing's attempt limit).
        let delete = try cached("DELETE FROM queue WHERE id = ?")
        for row in rows { try delete.run([.integer(row.id)]) }
    }

    func setAttempts(_ row: Row, _ attempts: Int) throws {
        try cached("UPDATE queue SET attempts = ? WHERE id = ?").run([.integer(Int64(attempts)), .integer(row.id)])
    }

    /// One journal line, like the SDK's onHttp plus the request itself.
    public struct JournalEntry: Sendable {
        public var lane: String
        public var request: HTTPRequestSpec
        public var uuids: [String]
        public var status: Int
        public var response: String?
        public var ms: Int
        public var attempt: Int
        public var outcome: String
        /// The body's SHA-256 when already computed (the engine hashes it while awaiting the response).
        public var requestSHA256: String? = nil
        /// `uuids` as JSON when already written (also prepared while awaiting the response).
        public var uuidsJSON: String? = nil
        /// Why there was no response (`kind: sentence`), for status 0.
        public var error: String? = nil
        /// A 3xx's `Location`, as sent (never followed).
        public var location: String? = nil
    }

    /// Same text as `JSONValue.array(strings.map { .string($0) }).jsonText`, written as bytes:
    /// uuids almost never need escaping, and String appends per uuid cost more than the insert.
    static func jsonArray(_ strings: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(strings.reduce(2) { $0 + $1.utf8.count + 3 })
        let writer = JSONWriter()
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
                var escaped = ""
                writer.writeString(string, into: &escaped)
                out.append(contentsOf: escaped.utf8)
            } else {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: string.utf8)
                out.append(UInt8(ascii: "\""))
            }
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The redacted headers JSON of the last journaled request: a drain journals thousands of
    /// requests with the same headers, and redaction scans every value for secrets.
    private var journaledHeaders: (headers: [HTTPHeader], redactor: Redactor, text: String)?

    /// `storeBody`: the request text itself (kept for failed requests, to diagnose them; a
    /// delivered request keeps its size and SHA-256 — its records are still in the evidence).
    func journal(_ entry: JournalEntry, redactor: Redactor, storeBody: Bool = true) throws {
        let stmt = try cached("""
            INSERT INTO journal(at, lane, method, url, uuids, count, headers, request, bytes, request_sha256, status, response,
                                ms, attempt, outcome, error, location)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let headers: String
        if let last = journaledHeaders, last.headers == entry.request.headers, last.redactor.redactsLike(redactor) {
            headers = last.text
        } else {
            headers = entry.request.redactedHeaders(redactor).jsonText
            journaledHeaders = (entry.request.headers, redactor, headers)
        }
        let uuids = entry.uuidsJSON ?? WorkingCopy.jsonArray(entry.uuids)
        try stmt.run([
            .text(Timestamp.format(Date().timeIntervalSince1970)), .text(entry.lane), .text(entry.request.method),
            .text(entry.request.url), .text(uuids),
            .integer(Int64(entry.uuids.count)), .text(headers),
            storeBody ? .text(entry.request.bodyText) : .null, .integer(Int64(entry.request.body.count)),
            .text(entry.requestSHA256 ?? SHA256Hasher.hex(bytes: entry.request.body)),
            .integer(Int64(entry.status)), entry.response.map { .text(String($0.prefix(1024))) } ?? .null,
            .integer(Int64(entry.ms)), .integer(Int64(entry.attempt)), .text(entry.outcome),
            entry.error.map { .text(redactor.redact(text: $0)) } ?? .null,
            entry.location.map { .text(redactor.redact(text: $0)) } ?? .null,
        ])
        journaledRow = database.lastInsertRowID
    }

    // MARK: log lane

    public func nextLogBatch(limit: Int) throws -> [LogEntry] {
        let stmt = try cached("""
            SELECT id, ts, level, src, event, message, data FROM log_entries WHERE uploaded = 0 ORDER BY id LIMIT ?
            """)
        try stmt.bind([.integer(Int64(limit))])
        var entries: [LogEntry] = []
        while try stmt.step() {
            let ts = stmt.text(1) ?? ""
            entries.append(LogEntry(rowId: stmt.int64(0), tsText: ts, time: Timestamp.parse(ts) ?? 0, level: stmt.int(2),
                                    src: stmt.text(3) ?? "", event: stmt.text(4) ?? "", message: stmt.text(5),
                                    dataText: stmt.text(6), uploaded: false))
        }
        return entries
    }

    func markUploaded(_ entries: [LogEntry]) throws {
        let stmt = try cached("UPDATE log_entries SET uploaded = 1 WHERE id = ?")
        for entry in entries { try stmt.run([.integer(entry.rowId)]) }
    }

    // MARK: quarantine listing

    /// One quarantined record.
    public struct QuarantinedRecord: Sendable {
        public var rowId: Int64?
        public var uuid: String
        public var json: String
        public var status: Int
        public var response: String?
        public var reason: String
        public var at: String

        /// NDJSON line: the record as parsed JSON when it parses, else its text.
        public func json(redactor: Redactor) -> JSONValue {
            [
                "uuid": .string(uuid), "rowId": .from(rowId.map { Int($0) }), "status": .int(Int64(status)),
                "reason": .string(reason), "at": .string(at),
                "response": .from(response.map { redactor.redact(text: $0) }),
                "record": (try? JSONParser.parse(json)) ?? .string(json),
            ]
        }
    }

    public func quarantined() throws -> [QuarantinedRecord] {
        let stmt = try database.prepare("SELECT row_id, uuid, json, status, response, reason, at FROM quarantine ORDER BY id")
        var out: [QuarantinedRecord] = []
        while try stmt.step() {
            out.append(QuarantinedRecord(rowId: stmt.isNull(0) ? nil : stmt.int64(0), uuid: stmt.text(1) ?? "",
                                         json: stmt.text(2) ?? "", status: stmt.int(3), response: stmt.text(4),
                                         reason: stmt.text(5) ?? "", at: stmt.text(6) ?? ""))
        }
        return out
    }
}

extension Redactor {
    /// Same switch and same learned secrets: both redact any text identically.
    func redactsLike(_ other: Redactor) -> Bool {
        enabled == other.enabled && knownSecrets == other.knownSecrets
    }
}
