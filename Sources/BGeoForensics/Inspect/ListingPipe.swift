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
    /// Appends, for a piped listing's worker, a row taken from its cells as the listing's byte
    /// path writes it (`bytes`), between the format's separators; false, with nothing appended,
    /// when the row must be built instead.
    static func appendRow(to sink: PipedSink<UInt8>, _ separators: RowWriter.JSONRowSeparators,
                          _ bytes: (inout [UInt8]) -> Bool) -> Bool {
        sink.append { out in
            let start = out.count
            out.append(contentsOf: separators.before)
            guard bytes(&out) else {
                out.removeSubrange(start...)
                return false
            }
            out.append(contentsOf: separators.after)
            return true
        }
    }

    /// Appends a built row's JSON text between the format's separators.
    static func appendBuilt(to sink: PipedSink<UInt8>, _ separators: RowWriter.JSONRowSeparators, _ text: String) {
        sink.append { out in
            out.append(contentsOf: separators.before)
            out.append(contentsOf: text.utf8)
            out.append(contentsOf: separators.after)
        }
    }
}
