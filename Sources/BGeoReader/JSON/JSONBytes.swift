import BGeoSQLite

/// JSON written as bytes straight from SQLite's cells, for the listings' rows: only where the
/// bytes are exactly what `JSONWriter` would write for the cell's text, else the caller builds
/// the row as values.
package enum JSONBytes {
    /// Appends cell `column` as a JSON string (a NULL cell as `""`, as the listings show it) when
    /// every byte is one `JSONWriter.writeString` writes as it is (`VerbatimJSON.isPlainStringByte`,
    /// the rule stored JSON is copied through by), between quotes. Returns false otherwise (something is then appended
    /// that the caller removes).
    package static func appendPlainString(_ stmt: Statement, _ column: Int, to out: inout [UInt8]) -> Bool {
        stmt.withUTF8(column) { bytes in
            out.append(0x22)
            if let bytes {
                for byte in bytes where !VerbatimJSON.isPlainStringByte(byte) { return false }
                out.append(contentsOf: bytes)
            }
            out.append(0x22)
            return true
        }
    }

    /// Appends cell `column`'s stored JSON as a listing shows it (`RedactedJSONText.append`: as it
    /// is, or without its whitespace, when nothing is to redact, else rewritten redacted as it is
    /// read); a NULL cell as `null` when `nullAllowed`. Returns false, having appended nothing,
    /// for a NULL cell not allowed or text that is not JSON (the caller shows it as text).
    package static func appendStoredJSON(_ stmt: Statement, _ column: Int, redactor: Redactor, nullAllowed: Bool,
                                 to out: inout [UInt8]) -> Bool {
        stmt.withUTF8(column) { json in
            guard let json else {
                if nullAllowed { out.append(contentsOf: "null".utf8) }
                return nullAllowed
            }
            return RedactedJSONText.append(json, redactor: redactor, to: &out)
        }
    }
}
