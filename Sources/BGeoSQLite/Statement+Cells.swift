import CSQLite
import Foundation

/// One stored value with its exact storage class, blobs included: what a table copy reads and
/// writes back so that integers stay integers and bytes stay bytes.
public enum CellValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue {
    /// The same value as a cell.
    package var cell: CellValue {
        switch self {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return .real(v)
        case .text(let v): return .text(v)
        }
    }
}

extension Statement {
    /// The column as it is stored (a blob as bytes, not decoded as text).
    public func cell(_ index: Int) -> CellValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .text(text(index) ?? "")
        }
    }

    /// Binds cells to `?` parameters in order (after a reset) and runs the statement.
    public func run(cells: [CellValue]) throws(SQLiteError) {
        try bind(cells: cells)
        while try step() {}
    }

    /// Binds a text by its bytes, every one of them (as a C string a text read with a NUL inside
    /// ended at the NUL, and sanitize dropped the rest of the cell). SQLite copies them.
    func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) -> Int32 {
        // A zero-length text still needs a pointer: NULL would bind NULL.
        let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        return sqlite3_bind_text64(handle, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
                                   csqlite_transient(), UInt8(SQLITE_UTF8))
    }

    /// Binds a blob by its bytes (an empty one stays a blob). SQLite copies them.
    func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) -> Int32 {
        sqlite3_bind_blob64(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, sqlite3_uint64(bytes.count),
                            csqlite_transient())
    }

    /// Binds cells to `?` parameters, in order, after resetting the statement.
    public func bind(cells: [CellValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in cells.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(var v): rc = v.withUTF8 { bindText(UnsafeRawBufferPointer($0), at: index) }
            case .blob(let bytes): rc = bytes.withUnsafeBytes { bindBlob($0, at: index) }
            }
            guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: database.lastErrorMessage, sql: sql) }
        }
    }
}
