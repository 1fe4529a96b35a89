import CSQLite
import Foundation

/// One SQLite connection. Not shared across threads.
public final class Database {
    /// Raw handle: `package`, for the package's readers that step statements through the C API (the field scanner reads cells in place).
    package let handle: OpaquePointer
    public let path: String

    /// How a connection is opened.
    public enum Mode: Sendable {
        /// Read-only: the file and its -wal/-shm are never written.
        case readOnly
        /// Read-write, creating the file if missing (working copies, simulated dumps).
        case readWriteCreate
        /// Evidence read where it lies: through the "bgeo-evidence" VFS (`CSQLite/shim.h`), whose
        /// file methods can only read, take no lock and say the file never changes (SQLite then
        /// neither reads nor makes a journal, -wal or -shm), and which opens the path exactly as
        /// given, so "/proc/self/fd/N" stays the file that descriptor holds.
        case evidence
    }

    /// The process-wide settings (`csqlite_configure`), made once before SQLite initialises:
    /// every connection is opened after them. SQLITE_MISUSE (SQLite already initialised by
    /// someone else) leaves the defaults, which are only slower.
    private static let configured: Int32 = csqlite_configure()

    /// The evidence VFS, registered once per process.
    private static let evidenceVFS: Int32 = { _ = configured; return csqlite_register_evidence_vfs() }()

    public init(path: String, mode: Mode) throws(SQLiteError) {
        _ = Database.configured
        var db: OpaquePointer?
        let rc: Int32
        switch mode {
        case .readOnly:
            rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        case .readWriteCreate:
            rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        case .evidence:
            guard Database.evidenceVFS == SQLITE_OK else {
                throw SQLiteError(code: Database.evidenceVFS, message: "the evidence VFS could not be registered")
            }
            // A URI, for `immutable`; the path is percent-encoded so no character of it is read as URI syntax.
            let uri = "file:" + Database.uriEncoded(path) + "?mode=ro&immutable=1"
            rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, "bgeo-evidence")
        }
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        let functions = csqlite_register_functions(db)
        guard functions == SQLITE_OK else {
            sqlite3_close_v2(db)
            throw SQLiteError(code: functions, message: "the package's SQL functions could not be registered")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// `path` for a URI filename: every byte but unreserved ones and `/` percent-encoded.
    static func uriEncoded(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: rc, message: message, sql: sql)
        }
    }

    /// Compiles a statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(code: rc, message: lastErrorMessage, sql: sql)
        }
        return Statement(handle: stmt, database: self, sql: sql)
    }

    /// Runs `body` inside BEGIN IMMEDIATE … COMMIT; rolls back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    package var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Row id of the last insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }
}

extension Database {
    /// Leaves the -wal in place when this connection closes (used only to build WAL test dumps).
    public func setNoCheckpointOnClose() throws(SQLiteError) {
        let rc = csqlite_no_checkpoint_on_close(handle)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: lastErrorMessage) }
    }
}
