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
    }

    public init(path: String, mode: Mode) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags: Int32
        switch mode {
        case .readOnly: flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        case .readWriteCreate: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit {
        sqlite3_close_v2(handle)
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
