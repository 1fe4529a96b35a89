import CSQLite

extension Statement {
    /// Calls `body` with the column's bytes as stored (valid only during the call; empty for NULL).
    package func withBlob<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let column = Int32(index)
        // sqlite3_column_blob first, then the size (SQLite's documented order).
        let blob = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = blob else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
