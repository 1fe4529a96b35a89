/// Characters that change how text is shown without being seen: C0 and C1 controls, DEL,
/// bidirectional marks, embeddings, overrides and isolates (U+202E turns `fdp.exe` around),
/// zero-width characters, line and paragraph separators, the byte-order mark, and the
/// noncharacters U+FFFE / U+FFFF. Writers of text formats neutralise them, so a hostile string
/// from a dump cannot rearrange a terminal or a viewer when the output is shown raw.
public enum InvisibleCharacters {
    /// True for the characters above (tab, newline and carriage return included: callers that
    /// keep those decide so themselves).
    public static func contains(_ value: UInt32) -> Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x180E, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2069, 0xFEFF, 0xFFF9...0xFFFB, 0xFFFE, 0xFFFF:
            return true
        default: return false
        }
    }

    /// JSON text with every invisible character written as a `\uXXXX` escape. JSON puts such
    /// characters only inside strings (its own syntax is ASCII), so replacing them anywhere in
    /// the text keeps the document and every parsed string unchanged. Plain ASCII comes back as is.
    public static func escapingJSON(_ json: String) -> String {
        // JSONWriter already escapes C0 controls; what is left can only be DEL or non-ASCII.
        guard json.utf8.contains(where: { $0 >= 0x7F }) else { return json }
        var out = ""
        out.reserveCapacity(json.utf8.count + 16)
        for scalar in json.unicodeScalars {
            if contains(scalar.value) {
                out += unicodeEscape(scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `s` as a quoted JSON string literal that is safe to show on a terminal.
    public static func jsonLiteral(_ s: String) -> String {
        // Fast path for the usual uuid or word: printable ASCII without quote or backslash.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) { return "\"" + s + "\"" }
        var out = ""
        JSONWriter().writeString(s, into: &out)
        return escapingJSON(out)
    }

    /// Compact JSON of `value`, safe to show on a terminal (one NDJSON line).
    public static func jsonLine(_ value: JSONValue) -> String {
        escapingJSON(JSONWriter().string(value))
    }

    static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
