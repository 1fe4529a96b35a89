import CSQLite

/// A value SQLite can bind.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A compiled statement. Step through rows with `step()` and read columns by index.
public final class Statement {
    package let handle: OpaquePointer
    package unowned let database: Database
    public let sql: String

    package init(handle: OpaquePointer, database: Database, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds values to `?` parameters, in order, after resetting the statement.
    public func bind(_ values: [SQLValue]) throws(SQLiteError) {
        try bind(cells: values.map(\.cell))
    }

    /// Ends the current run of the statement (its read transaction with it) so it can be run
    /// again; its bindings stay.
    public func reset() { sqlite3_reset(handle) }

    /// Advances to the next row; false when done.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: rc, message: database.lastErrorMessage, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    public func run(_ values: [SQLValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(_ index: Int) -> String {
        String(cString: sqlite3_column_name(handle, Int32(index)))
    }

    public func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    public func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    public func int(_ index: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(index))) }

    /// The column as a Double, or nil when SQL NULL.
    public func double(_ index: Int) -> Double? {
        isNull(index) ? nil : sqlite3_column_double(handle, Int32(index))
    }

    /// The column as text, or nil when SQL NULL.
    public func text(_ index: Int) -> String? {
        guard let bytes = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Calls `body` with the column's raw UTF-8 bytes (valid only during the call); nil when NULL.
    public func withUTF8<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        guard let bytes = sqlite3_column_text(handle, Int32(index)) else { return try body(nil) }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeBufferPointer(start: bytes, count: count))
    }

    /// The column's value as a tagged SQLValue.
    public func value(_ index: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, Int32(index)))
        default: return .text(text(index) ?? "")
        }
    }
}
