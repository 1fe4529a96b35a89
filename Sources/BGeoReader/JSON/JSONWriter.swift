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
        var out: [UInt8] = []
        write(value, into: &out, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value`'s text to `out` (`indent`: the level the value starts at when pretty).
    public func write(_ value: JSONValue, into out: inout String, indent: Int) {
        var bytes: [UInt8] = []
        write(value, into: &bytes, indent: indent)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value`'s UTF-8 text to `out`: the writer works in bytes (appending to a String
    /// cost more than the rest of writing a timeline's 20,000 attempts).
    public func write(_ value: JSONValue, into out: inout [UInt8], indent: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: JSONWriter.format(d).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(0x5B)
            for (offset, element) in elements.enumerated() {
                if offset > 0 { out.append(0x2C) }
                newline(&out, indent + 1)
                write(element, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out.append(0x5D)
        case .object(let object):
            if object.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(0x7B)
            let members = sortedKeys ? object.members.sorted { $0.key < $1.key } : object.members
            for (offset, member) in members.enumerated() {
                if offset > 0 { out.append(0x2C) }
                newline(&out, indent + 1)
                writeString(member.key, into: &out)
                out.append(0x3A)
                if pretty { out.append(0x20) }
                write(member.value, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out.append(0x7D)
        }
    }

    private func newline(_ out: inout [UInt8], _ indent: Int) {
        guard pretty else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: 2 * indent))
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
        var out: [UInt8] = [0x7B]
        for (offset, member) in members.enumerated() {
            if offset > 0 { out.append(0x2C) }
            writeString(member.key, into: &out)
            out.append(0x3A)
            switch member.value {
            case .value(let value): write(value, into: &out, indent: 1)
            case .written(let text): out.append(contentsOf: text.utf8)
            }
        }
        out.append(0x7D)
        return String(decoding: out, as: UTF8.self)
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
        guard needsEscape(s) else {
            out += "\""
            out += s
            out += "\""
            return
        }
        var bytes: [UInt8] = []
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// `s` as a quoted JSON string literal, appended as UTF-8.
    public func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        if needsEscape(s) {
            writeEscaped(s, into: &out)
        } else {
            out.append(contentsOf: s.utf8)
        }
        out.append(0x22)
    }

    /// Whether `s` holds a byte or scalar written as an escape. Controls a terminal would act on
    /// (DEL, C1, bidi overrides, U+2028/9) are escaped too: standard JSON escapes, so the text
    /// reads back the same, and JSON printed to a terminal can neither rewrite nor disguise it.
    private func needsEscape(_ s: String) -> Bool {
        // A native string's bytes are read in place (a byte-by-byte walk of `utf8` costs more than
        // the check: most strings written are short and need nothing).
        let verdict = s.utf8.withContiguousStorageIfAvailable(asciiVerdict) ?? asciiVerdict(s.utf8)
        return verdict ?? TerminalText.needsEscaping(s, keepingNewlines: false)
    }

    /// True when an ASCII byte of `bytes` is written as an escape; false when none is and all are
    /// ASCII; nil when none is but some are not ASCII (the terminal's rules then decide).
    @inline(__always)
    private func asciiVerdict<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool? {
        var nonASCII = false
        for byte in bytes {
            if escapesASCII(byte) { return true }
            if byte >= 0x80 { nonASCII = true }
        }
        return nonASCII ? nil : false
    }

    /// An ASCII byte written as an escape: a control, a quote, a backslash, DEL (and with
    /// `htmlSafe`, `<`, `>`, `&`).
    @inline(__always)
    private func escapesASCII(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || (htmlSafe && (byte == 0x3C || byte == 0x3E || byte == 0x26))
    }
}

extension JSONWriter {
    /// The body of a string that needs escapes: the runs between escapes are appended whole
    /// (a String's UTF-8 is valid, so each run cut at scalar boundaries is too), not scalar by scalar.
    private func writeEscaped(_ s: String, into out: inout [UInt8]) {
        var text = s
        text.withUTF8 { bytes in
            var runStart = 0, i = 0
            while i < bytes.count {
                let b = bytes[i]
                let length = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
                var value = length == 1 ? UInt32(b) : UInt32(b) & (0x7F >> length)
                for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
                if let escape = escape(value) {
                    if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                    out.append(contentsOf: escape.utf8)
                    runStart = i + length
                }
                i += length
            }
            if bytes.count > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
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
