/// Serialises JSONValue deterministically: keys in stored order (or sorted, when asked),
/// shortest round-trip numbers, RFC 8259 escaping (every control as a \u escape, plus `<`, `>` and `&` as \u escapes when
/// `htmlSafe`, so JSON embedded in HTML can never close a script element).
public struct JSONWriter: Sendable {
    public var sortedKeys: Bool
    public var pretty: Bool
    public var htmlSafe: Bool

    public init(sortedKeys: Bool = false, pretty: Bool = false, htmlSafe: Bool = false) {
        self.sortedKeys = sortedKeys
        self.pretty = pretty
        self.htmlSafe = htmlSafe
    }

    public func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: 0)
        return out
    }

    public func write(_ value: JSONValue, into out: inout String, indent: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONWriter.format(d)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { out += "," }
                newline(&out, indent + 1)
                write(element, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out += "]"
        case .object(let object):
            if object.isEmpty { out += "{}"; return }
            out += "{"
            let members = sortedKeys ? object.members.sorted { $0.key < $1.key } : object.members
            for (offset, member) in members.enumerated() {
                if offset > 0 { out += "," }
                newline(&out, indent + 1)
                writeString(member.key, into: &out)
                out += pretty ? ": " : ":"
                write(member.value, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: Int) {
        guard pretty else { return }
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Shortest text that reads back as the same Double. A real keeps its `.0` (`5.0`), so a
    /// record parsed and re-written keeps the int/real distinction of its source.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return "\(value)"
    }

    /// A member value for `objectString`: a value to write, or JSON text already in this writer's
    /// form (a stored record copied through, see `VerbatimJSON`).
    public enum MemberValue {
        case value(JSONValue)
        case written(String)
    }

    /// `{…}` of `members` in the given order, compact: what `string(.object(…))` writes when every
    /// `.written` text is what this writer makes of that value.
    public func objectString(_ members: [(key: String, value: MemberValue)]) -> String {
        precondition(!pretty && !sortedKeys, "objectString writes compact members in the order given")
        var out = "{"
        for (offset, member) in members.enumerated() {
            if offset > 0 { out += "," }
            writeString(member.key, into: &out)
            out += ":"
            switch member.value {
            case .value(let value): write(value, into: &out, indent: 1)
            case .written(let text): out += text
            }
        }
        return out + "}"
    }

    /// `s` as a quoted JSON string literal (the GeoJSON writer assembles its documents from these).
    public func literal(_ s: String) -> String {
        // Fast path for the usual uuid or word: printable ASCII without quote or backslash.
        if !htmlSafe, s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) { return "\"" + s + "\"" }
        var out = ""
        writeString(s, into: &out)
        return out
    }

    public func writeString(_ s: String, into out: inout String) {
        out += "\""
        // Controls a terminal would act on (DEL, C1, bidi overrides, U+2028/9) are escaped too:
        // standard JSON escapes, so the text reads back the same, and JSON printed to a terminal
        // can neither rewrite nor disguise it.
        var needsEscape = false
        var nonASCII = false
        for byte in s.utf8 {
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || (htmlSafe && (byte == 0x3C || byte == 0x3E || byte == 0x26)) {
                needsEscape = true
                break
            }
            if byte >= 0x80 { nonASCII = true }
        }
        if !needsEscape, nonASCII { needsEscape = TerminalText.needsEscaping(s, keepingNewlines: false) }
        if !needsEscape {
            out += s
        } else {
            writeEscaped(s, into: &out)
        }
        out += "\""
    }
}

extension JSONWriter {
    /// The body of a string that needs escapes: the runs between escapes are appended whole
    /// (a String's UTF-8 is valid, so each run cut at scalar boundaries is too), not scalar by scalar.
    private func writeEscaped(_ s: String, into out: inout String) {
        var text = s
        text.withUTF8 { bytes in
            var runStart = 0, i = 0
            while i < bytes.count {
                let b = bytes[i]
                let length = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
                var value = length == 1 ? UInt32(b) : UInt32(b) & (0x7F >> length)
                for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
                if let escape = escape(value) {
                    if i > runStart { out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<i]), as: UTF8.self) }
                    out += escape
                    runStart = i + length
                }
                i += length
            }
            if bytes.count > runStart { out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart...]), as: UTF8.self) }
        }
    }

    /// How the scalar `value` is written inside a JSON string, nil when as itself.
    private func escape(_ value: UInt32) -> String? {
        switch value {
        case 0x22: return "\\\""
        case 0x5C: return "\\\\"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x3C where htmlSafe: return "\\u003c"
        case 0x3E where htmlSafe: return "\\u003e"
        case 0x26 where htmlSafe: return "\\u0026"
        case RawPath.byteScalars:
            // A file name's byte that is not UTF-8 has no JSON form: shown as the text views show it.
            return "\\" + TerminalText.visible(value)
        default:
            guard TerminalText.isControl(value) else { return nil }
            let hex = String(value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}

extension JSONValue {
    /// Compact serialisation in stored key order.
    public var jsonText: String { JSONWriter().string(self) }
}
