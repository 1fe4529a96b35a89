import Foundation

/// Reads the fix `timestamp` of a `location` log line — the one field the gap finder needs for
/// every row (motion and position are looked up later, only for the fixes at a gap's edges).
/// One pass over the top-level keys, stopping at `timestamp`: several times cheaper than a
/// validating scan of the whole object on a million rows. SQLite has already checked the text is
/// JSON (`json_valid`), and a line with any backslash is declined, so every `"` delimits a string
/// and a string followed by `:` is a key. Anything unexpected returns nil and the caller falls
/// back to `FieldScanner`.
enum LocationLineReader {
    private static let timestampKey = Array("timestamp".utf8)

    static func time(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let base = bytes.baseAddress, bytes.count > 1 else { return nil }
        guard memchr(base, 0x5C, bytes.count) == nil else { return nil }  // no escapes anywhere
        let n = bytes.count
        var depth = 0
        var i = 0
        while i < n {
            let byte = bytes[i]
            if byte == 0x22 {  // "
                guard let close = memchr(base + i + 1, 0x22, n - i - 1) else { return nil }
                let end = UnsafeRawPointer(close) - UnsafeRawPointer(base)
                var j = end + 1
                while j < n, bytes[j] == 0x20 || bytes[j] == 0x0A || bytes[j] == 0x0D || bytes[j] == 0x09 { j += 1 }
                if depth == 1, j < n, bytes[j] == 0x3A, end - i - 1 == timestampKey.count,
                   memcmp(base + i + 1, timestampKey, timestampKey.count) == 0 {
                    // The value must be a string.
                    j += 1
                    while j < n, bytes[j] == 0x20 { j += 1 }
                    guard j < n, bytes[j] == 0x22,
                          let valueClose = memchr(base + j + 1, 0x22, n - j - 1) else { return nil }
                    let valueEnd = UnsafeRawPointer(valueClose) - UnsafeRawPointer(base)
                    return Timestamp.parse(bytes: UnsafeBufferPointer(rebasing: bytes[(j + 1)..<valueEnd]))
                }
                i = end + 1
                continue
            }
            if byte == 0x7B || byte == 0x5B { depth += 1 } else if byte == 0x7D || byte == 0x5D { depth -= 1 }
            i += 1
        }
        return nil
    }
}
