import CSQLite

/// An SQLite failure: the result code plus the message SQLite gave for it.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The primary or extended SQLite result code (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, …).
    public let code: Int32
    /// SQLite's own message for the failure.
    public let message: String
    /// The SQL being run when it failed, if any.
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (extended codes carry it in their low byte).
    public var primaryCode: Int32 { code & 0xff }

    /// True when SQLite says the bytes are not a database or are damaged.
    public var isNotADatabaseOrCorrupt: Bool {
        primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT
    }

    /// True when a row was refused for breaking its table's definition (UNIQUE, NOT NULL, CHECK,
    /// or a rowid that is not an integer).
    public var isRowRefused: Bool {
        primaryCode == SQLITE_CONSTRAINT || primaryCode == SQLITE_MISMATCH
    }

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in \(sql))" }
        return "SQLite error \(code): \(message)"
    }
}
