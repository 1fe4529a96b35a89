/// When a JSON listing's rows are formatted on other connections (`ScanRunner.piped`): tables of
/// at least `minimumRows` row ids, in chunks of `chunkRows` (the tests pipe tiny tables).
public struct ListingPipe: Sendable {
    public var minimumRows: Int64 = 50_000
    public var chunkRows: Int64 = 16_384
    /// Bytes of rows per batch a worker sends (`ScanRunner.piped`'s `batchItems`, a listing's
    /// items being bytes).
    static let batchBytes = 256 << 10

    public init(minimumRows: Int64 = 50_000, chunkRows: Int64 = 16_384) {
        self.minimumRows = minimumRows
        self.chunkRows = chunkRows
    }
}

extension ListingPipe {
    /// A JSON listing's rows formatted on other connections (`ScanRunner.piped`, the **in order**
    /// rule), chunk by chunk in `chunks`' order, as this thread's read writes them: `read` reads a
    /// chunk's rows (a listing's `forEachRecord` / `forEachLogEntry`, as `RowWriter.listRows` is
    /// given it), each row taken from its cells written by `bytes`, else built and written as
    /// `jsonText` says, between the format's separators. Nil as `ScanRunner.piped`.
    static func formatJSON<Row, Built>(
        _ dump: Dump, chunks: [Range<Int64>], separators: RowWriter.JSONRowSeparators,
        read: @escaping @Sendable (_ reader: Dump, _ rows: Range<Int64>, _ continuing: @escaping (Int64) -> Bool,
                                   _ taker: @escaping (Row) -> Bool, _ built: @escaping (Built) -> Void) -> Void,
        bytes: @escaping @Sendable (Row, inout [UInt8]) -> Bool,
        jsonText: @escaping @Sendable (Built, JSONWriter) -> String
    ) -> PipedRead<UInt8>? {
        ScanRunner.piped(dump, chunks: chunks, batchItems: batchBytes) { reader, rows, sink in
            let jsonWriter = JSONWriter()
            read(reader, rows, sink.begin(row:), { row in
                sink.append { out in
                    let start = out.count
                    out.append(contentsOf: separators.before)
                    // A row the byte path declines is built instead, with nothing of it left here.
                    guard bytes(row, &out) else {
                        out.removeSubrange(start...)
                        return false
                    }
                    out.append(contentsOf: separators.after)
                    return true
                }
            }, { built in
                sink.append { out in
                    out.append(contentsOf: separators.before)
                    out.append(contentsOf: jsonText(built, jsonWriter).utf8)
                    out.append(contentsOf: separators.after)
                }
            })
        }
    }
}
