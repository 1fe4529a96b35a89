import Foundation

/// A warning's forms on disk: a `WarningTape`'s records and the keys `WarningList` sorts by.
extension DumpWarning {
    /// The warning's bytes in an order that keeps equal warnings together, and a row's warnings
    /// (row, then table, then message; each text prefixed by its length, so none runs into the next).
    var sortKey: [UInt8] {
        var key: [UInt8] = [rowId == nil ? 0 : 1]
        withUnsafeBytes(of: (UInt64(bitPattern: rowId ?? 0) ^ (1 << 63)).bigEndian) { key.append(contentsOf: $0) }
        for text in [table, message] {
            let bytes = Array(text.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { key.append(contentsOf: $0) }
            key.append(contentsOf: bytes)
        }
        return key
    }

    /// Writes the warning's fields (read back by `init(from:)`).
    package func write(to sink: some TapeSink) {
        sink.put(table)
        sink.put(rowId == nil ? UInt8(0) : 1)
        sink.put(rowId ?? 0)
        sink.put(message)
    }

    /// The warning `write(to:)` wrote.
    package init(from record: inout TapeRecordReader) {
        let table = record.string()
        let hasRow = record.uint8() != 0
        let row = record.int64()
        self.init(table: table, rowId: hasRow ? row : nil, message: record.string())
    }
}
