import BGeoForensics
import Foundation
import BGeoSQLite

/// Writes dumps in any of the layouts the reader supports: the simulator and the tests build
/// their evidence with it, through real SQLite files.
public final class DumpWriter {
    /// Which schema to create.
    public enum Layout: Sendable {
        /// BGeo schema 3: `location_events(json, kind)`, `log_entries`, `state`.
        case current
        /// BGeo schema 1–2: record column `data`, no `kind`; `state` only when `withState`.
        case legacy(withState: Bool)
        /// LongPing: one `queue` table with `attempts`.
        case longping
    }

    public let path: String
    public let layout: Layout
    public let database: Database
    private var insertRecordStatement: Statement?
    private var insertLogStatement: Statement?
    private var inTransaction = false
    /// Store every JSON text (a queue record, a log row's data, a state value) with a space after
    /// each `,` and `:` between tokens, as Python's `json.dumps` writes it: a dump made by a script,
    /// not by the SDK (the bench's `spaced` shape, stop 55).
    public var spacesJSON = false

    /// Creates (or truncates) the file at `path`. `wal` switches the journal to WAL mode.
    public init(path: String, layout: Layout, wal: Bool = false) throws {
        self.path = path
        self.layout = layout
        for suffix in ["", "-wal", "-shm", "-journal"] {
            _ = unlink(path + suffix)
        }
        database = try Database(path: path, mode: .readWriteCreate)
        // Fixed page size so simulated dumps are byte-identical on any SQLite build.
        try database.execute("PRAGMA page_size = 4096")
        if wal { try database.execute("PRAGMA journal_mode = WAL") }
        try database.execute("PRAGMA synchronous = OFF")
        switch layout {
        case .current:
            try database.execute("""
                CREATE TABLE location_events (
                  id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, timestamp TEXT NOT NULL,
                  kind TEXT NOT NULL DEFAULT 'location', json TEXT NOT NULL, created_at TEXT NOT NULL);
                CREATE TABLE log_entries (
                  id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, level INTEGER NOT NULL, src TEXT NOT NULL,
                  event TEXT NOT NULL, message TEXT, data TEXT, uploaded INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT);
                INSERT INTO state(key, value) VALUES ('schema_version', '3');
                """)
        case .legacy(let withState):
            try database.execute("""
                CREATE TABLE location_events (
                  id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, timestamp TEXT NOT NULL,
                  data TEXT NOT NULL, created_at TEXT NOT NULL);
                CREATE TABLE log_entries (
                  id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, level INTEGER NOT NULL, src TEXT NOT NULL,
                  event TEXT NOT NULL, message TEXT, data TEXT, uploaded INTEGER NOT NULL DEFAULT 0);
                """)
            if withState {
                try database.execute("""
                    CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT);
                    INSERT INTO state(key, value) VALUES ('schema_version', '2');
                    """)
            }
        case .longping:
            try database.execute("""
                CREATE TABLE queue (
                  id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
                  payload TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0);
                """)
        }
    }

    /// Groups many inserts into one transaction (a million rows in seconds, not hours).
    public func begin() throws {
        guard !inTransaction else { return }
        try database.execute("BEGIN")
        inTransaction = true
    }

    public func commit() throws {
        guard inTransaction else { return }
        try database.execute("COMMIT")
        inTransaction = false
    }

    /// Inserts a queue row. `json` is stored verbatim (it may be deliberately broken).
    /// Returns the row id.
    @discardableResult
    public func insertRecord(uuid: String, timestamp: String, kind: RecordKind = .location, json: String,
                             createdAt: String? = nil, attempts: Int = 0) throws -> Int64 {
        if insertRecordStatement == nil {
            switch layout {
            case .current:
                insertRecordStatement = try database.prepare(
                    "INSERT INTO location_events(uuid, timestamp, kind, json, created_at) VALUES (?, ?, ?, ?, ?)")
            case .legacy:
                insertRecordStatement = try database.prepare(
                    "INSERT INTO location_events(uuid, timestamp, data, created_at) VALUES (?, ?, ?, ?)")
            case .longping:
                insertRecordStatement = try database.prepare(
                    "INSERT INTO queue(uuid, created_at, payload, attempts) VALUES (?, ?, ?, ?)")
            }
        }
        let created = createdAt ?? timestamp
        let json = spacesJSON ? DumpWriter.spaced(json) : json
        switch layout {
        case .current:
            try insertRecordStatement!.run([.text(uuid), .text(timestamp), .text(kind.rawValue), .text(json), .text(created)])
        case .legacy:
            try insertRecordStatement!.run([.text(uuid), .text(timestamp), .text(json), .text(created)])
        case .longping:
            try insertRecordStatement!.run([.text(uuid), .text(created), .text(json), .integer(Int64(attempts))])
        }
        return database.lastInsertRowID
    }

    /// Inserts a record given as JSON; uuid and timestamp are read from it.
    @discardableResult
    public func insertRecord(_ record: JSONValue, createdAt: String? = nil, attempts: Int = 0) throws -> Int64 {
        let kind: RecordKind = record["geofence"] != nil ? .geofence : .location
        return try insertRecord(uuid: record["uuid"]?.stringValue ?? "", timestamp: record["timestamp"]?.stringValue ?? "",
                                kind: kind, json: record.jsonText, createdAt: createdAt, attempts: attempts)
    }

    /// Inserts a log row; returns its id. `data` is stored as given (nil → NULL).
    @discardableResult
    public func insertLog(ts: String, level: Int, src: String = "native", event: String, message: String? = nil,
                          data: String? = nil, uploaded: Bool = false) throws -> Int64 {
        if insertLogStatement == nil {
            insertLogStatement = try database.prepare(
                "INSERT INTO log_entries(ts, level, src, event, message, data, uploaded) VALUES (?, ?, ?, ?, ?, ?, ?)")
        }
        let data = spacesJSON ? data.map(DumpWriter.spaced) : data
        try insertLogStatement!.run([.text(ts), .integer(Int64(level)), .text(src), .text(event),
                                     message.map { .text($0) } ?? .null, data.map { .text($0) } ?? .null,
                                     .integer(uploaded ? 1 : 0)])
        return database.lastInsertRowID
    }

    /// Inserts a log row whose data is a JSON value.
    @discardableResult
    public func insertLog(ts: String, level: Int, src: String = "native", event: String, message: String? = nil,
                          data: JSONValue?, uploaded: Bool = false) throws -> Int64 {
        try insertLog(ts: ts, level: level, src: src, event: event, message: message, data: data?.jsonText, uploaded: uploaded)
    }

    /// Sets a `state` key to a JSON value (stored as its JSON text).
    public func setState(_ key: String, _ value: JSONValue) throws {
        try setState(key, raw: value.jsonText)
    }

    /// Sets a `state` key to raw text (may be deliberately invalid JSON).
    public func setState(_ key: String, raw: String?) throws {
        let stmt = try database.prepare("INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)")
        let raw = spacesJSON ? raw.map(DumpWriter.spaced) : raw
        try stmt.run([.text(key), raw.map { .text($0) } ?? .null])
    }

    /// `text` with a space after each `,` and `:` outside its strings (`spacesJSON`); a text that
    /// is not JSON is spaced the same way, as a script would leave it.
    static func spaced(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        var inString = false, escaped = false
        for byte in text.utf8 {
            out.append(byte)
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") {
                out.append(0x20)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Moves everything written so far from the WAL into the main file, so that rows written
    /// after this exist only in the -wal (with `close(keepWAL: true)`).
    public func checkpoint() throws {
        try commit()
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Commits any open transaction. In WAL mode the WAL is left in place (not checkpointed)
    /// when `keepWAL` is true, as on a phone that was dumped while the app was running.
    public func close(keepWAL: Bool = false) throws {
        try commit()
        insertRecordStatement = nil
        insertLogStatement = nil
        if keepWAL {
            // Disable the checkpoint-on-close so the newest rows stay only in -wal.
            try database.execute("PRAGMA wal_autocheckpoint = 0")
            try database.setNoCheckpointOnClose()
        }
    }
}
