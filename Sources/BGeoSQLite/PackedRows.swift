import CSQLite

/// Rows of cells packed for another thread to insert: every text and blob's bytes in one buffer,
/// the cells as plain values pointing into it. A batch of rows is then two allocations, made and
/// freed as wholes — not one heap string per cell allocated by the thread that reads and freed by
/// the thread that writes (glibc's allocator makes such a free wait for the other thread's
/// arena: sanitize's inserting thread spent its waits there).
public struct PackedRows: Sendable {
    /// One cell: its storage class and value, a text's or blob's bytes by place in `bytes`.
    public enum Cell: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(start: Int, count: Int)
        case blob(start: Int, count: Int)
    }

    /// Cells per row.
    public let width: Int
    public private(set) var cells: [Cell] = []
    private var bytes: [UInt8] = []

    public init(width: Int, reservingRows rows: Int = 0) {
        self.width = max(1, width)
        cells.reserveCapacity(self.width * rows)
    }

    public var rowCount: Int { cells.count / width }
    public var isEmpty: Bool { cells.isEmpty }

    /// Appends one cell (rows are `width` cells in turn).
    public mutating func append(_ cell: CellValue) {
        switch cell {
        case .null: cells.append(.null)
        case .integer(let v): cells.append(.integer(v))
        case .real(let v): cells.append(.real(v))
        case .text(var text):
            let start = bytes.count
            text.withUTF8 { bytes.append(contentsOf: $0) }
            cells.append(.text(start: start, count: bytes.count - start))
        case .blob(let blob):
            let start = bytes.count
            bytes.append(contentsOf: blob)
            cells.append(.blob(start: start, count: blob.count))
        }
    }

    /// Row `row`'s cells.
    public func row(_ row: Int) -> ArraySlice<Cell> { cells[(row * width)..<((row + 1) * width)] }

    /// A cell as a value again (tests, messages).
    public func value(_ cell: Cell) -> CellValue {
        switch cell {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return .real(v)
        case .text(let start, let count): return .text(String(decoding: bytes[start..<(start + count)], as: UTF8.self))
        case .blob(let start, let count): return .blob(Array(bytes[start..<(start + count)]))
        }
    }

    /// Binds row `index` to `statement`'s parameters in order (after a reset) and runs it.
    public func run(_ statement: Statement, row index: Int) throws(SQLiteError) {
        let handle = statement.handle
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let result: Int32 = bytes.withUnsafeBytes { buffer in
            for (offset, cell) in row(index).enumerated() {
                let parameter = Int32(offset + 1)
                let rc: Int32
                switch cell {
                case .null: rc = sqlite3_bind_null(handle, parameter)
                case .integer(let v): rc = sqlite3_bind_int64(handle, parameter, v)
                case .real(let v): rc = sqlite3_bind_double(handle, parameter, v)
                case .text(let start, let count):
                    rc = statement.bindText(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + count)]), at: parameter)
                case .blob(let start, let count):
                    rc = statement.bindBlob(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + count)]), at: parameter)
                }
                guard rc == SQLITE_OK else { return rc }
            }
            return SQLITE_OK
        }
        guard result == SQLITE_OK else { throw SQLiteError(code: result, message: statement.database.lastErrorMessage, sql: statement.sql) }
        while try statement.step() {}
    }
}
