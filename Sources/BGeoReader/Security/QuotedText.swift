/// Text between quotes with every quote inside doubled (an SQL identifier, a CSV field), done on
/// the UTF-8 bytes. A search of the `String` compares characters: a quote followed by a combining
/// mark (`"\u{301}`) is one character that is not `"`, so it was neither found nor doubled and
/// ended the quoted text early (a CSV row gained a column; an identifier ended mid-name).
package enum QuotedText {
    /// `quote` + `text` with each `quote` byte doubled + `quote` (`quote` is ASCII).
    package static func quoted(_ text: String, by quote: UInt8) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        out.append(quote)
        for byte in text.utf8 {
            out.append(byte)
            if byte == quote { out.append(quote) }
        }
        out.append(quote)
        return String(decoding: out, as: UTF8.self)
    }

    /// True when a byte of `text` is one of `bytes` (ASCII), however the characters around it combine.
    package static func holdsAny(of bytes: StaticString, in text: String) -> Bool {
        let wanted = UnsafeBufferPointer(start: bytes.utf8Start, count: bytes.utf8CodeUnitCount)
        return text.utf8.contains { wanted.contains($0) }
    }
}
