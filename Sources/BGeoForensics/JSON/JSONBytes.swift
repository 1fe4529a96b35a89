import BGeoSQLite

/// JSON written as bytes straight from SQLite's cells, for the listings' rows: only where the
/// bytes are exactly what `JSONWriter` would write for the cell's text, else the caller builds
/// the row as values.
enum JSONBytes {
    /// Appends cell `column` as a JSON string (a NULL cell as `""`, as the listings show it) when
    /// every byte is printable ASCII other than `"` and `\`: then `JSONWriter.writeString` writes
    /// the text as it is, between quotes. Returns false otherwise (something is then appended
    /// that the caller removes).
    static func appendPlainString(_ stmt: Statement, _ column: Int, to out: inout [UInt8]) -> Bool {
        stmt.withUTF8(column) { bytes in
            out.append(0x22)
            if let bytes {
                for byte in bytes where byte < 0x20 || byte > 0x7E || byte == 0x22 || byte == 0x5C { return false }
                out.append(contentsOf: bytes)
            }
            out.append(0x22)
            return true
        }
    }

    /// Appends cell `column`'s stored JSON as it is when the listings copy it through
    /// (`Redactor.copiesThrough`: already `JSONWriter`'s form, nothing to redact); a NULL cell as
    /// `null` when `nullAllowed`. Returns false otherwise, having appended nothing.
    static func appendStoredJSON(_ stmt: Statement, _ column: Int, redactor: Redactor, nullAllowed: Bool,
                                 to out: inout [UInt8]) -> Bool {
        stmt.withUTF8(column) { json in
            guard let json else {
                if nullAllowed { out.append(contentsOf: "null".utf8) }
                return nullAllowed
            }
            guard redactor.copiesThrough(json: json) else { return false }
            out.append(contentsOf: json)
            return true
        }
    }
}
