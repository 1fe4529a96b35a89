/// Text between quotes with every quote inside doubled (an SQL identifier, a CSV field), done on
/// the UTF-8 bytes. A search of the `String` compares characters: a quote followed by a combining
/// mark (`"\u{301}`) is one character that is not `"`, so it was neither found nor doubled and
/// ended the quoted text early (a CSV row gained a column; an identifier ended mid-name).
package enum QuotedText {
    /// `quote` + `text` with each `quote` byte doubled + `quote` (`quote` is ASCII).
    package static func quoted(_ text: String, by quote: UInt8) -> String {
        // Written once into a string of the exact size (a CSV cell may be a 60 MB document).
        var text = text
        return text.withUTF8 { bytes in
            let count = bytes.count + 2 + bytes.reduce(0) { $0 + ($1 == quote ? 1 : 0) }
            return String(unsafeUninitializedCapacity: count) { out in
                var at = 0
                out[at] = quote; at += 1
                for byte in bytes {
                    out[at] = byte; at += 1
                    if byte == quote { out[at] = quote; at += 1 }
                }
                out[at] = quote; at += 1
                return at
            }
        }
    }

    /// True when a byte of `text` is one of `bytes` (ASCII), however the characters around it combine.
    package static func holdsAny(of bytes: StaticString, in text: String) -> Bool {
        let wanted = UnsafeBufferPointer(start: bytes.utf8Start, count: bytes.utf8CodeUnitCount)
        return text.utf8.contains { wanted.contains($0) }
    }
}
