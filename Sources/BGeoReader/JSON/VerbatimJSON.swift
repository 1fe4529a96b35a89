import Foundation

/// Tells whether stored JSON text is already, byte for byte, what `JSONWriter()` (compact, keys
/// in stored order, not HTML-safe) writes for `JSONParser.parse` of it — so a listing can copy a
/// record through instead of building its tree and writing it again (issue 27: a tree per row
/// made `locations` and `logs` 5–9× slower than sqlite3 writing the same rows).
///
/// Only the common form is recognised; anything else answers false and takes the tree path,
/// which stays the definition of the output: no whitespace between tokens; strings without
/// `"`-escapes or `\`, of printable ASCII and well-formed UTF-8 of characters the writer leaves
/// as they are (not `TerminalText.isControl`); numbers as the writer prints them (an integer
/// without a leading zero, `-0` or more than 18 digits; a real `I.F` with at most 15 significant
/// digits, no trailing zero but `X.0`, between 1e-4 and 1e16 — there Swift's shortest
/// round-trip form is the same digits; no exponent); nesting shallower than 64. A key written
/// twice is copied as it stands: the tree keeps both members, in place
/// (`JSONObject.mappingValues`, stop 51).
public enum VerbatimJSON {
    static let maxDepth = 64

    /// A byte of a string's text that `JSONWriter` writes as it is: printable ASCII other than
    /// `"` and `\` (every other byte is escaped, or belongs to a character the writer checks).
    @inline(__always) static func isPlainStringByte(_ b: UInt8) -> Bool {
        b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\")
    }

    /// How stored JSON stands to the writer's form.
    public enum Form: Sendable, Equatable {
        /// Byte for byte what the writer writes (`isWrittenAsIs`).
        case asIs
        /// What the writer writes once the whitespace between tokens is taken out
        /// (`appendWithoutSpace`): Python's `json.dumps` writes `", "` and `": "`, so a dump made
        /// by a script holds every document so (stop 55: such a dump's listings took 3.3–3.7×
        /// as long, each row parsed and written again).
        case spaced
        /// Neither: the tree, or a streamed parse, decides what is written.
        case other
    }

    /// True when `bytes` would be written back unchanged (see the type's comment). A listing asks
    /// `Redactor.verbatimForm(json:)`, which adds the redaction's half.
    public static func isWrittenAsIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = Reader(bytes: bytes, names: nil, allowsSpace: false)
        return reader.document()
    }

    /// `isWrittenAsIs`, or whether it would be once the whitespace between tokens is taken out.
    public static func form(_ bytes: UnsafeBufferPointer<UInt8>) -> Form {
        var reader = Reader(bytes: bytes, names: nil, allowsSpace: true)
        return reader.document() ? (reader.sawSpace ? .spaced : .asIs) : .other
    }

    /// `form`, and `.other` when a string holds one of `names` (in any letter case): the names
    /// are looked for as the strings are read, not in a second pass. Only strings can hold a name
    /// (the other tokens of this form are digits, `-`, `.`, `true`, `false`, `null`, punctuation
    /// and whitespace), so this answers as `form` when `!names.mayContainName(bytes)`.
    package static func form(_ bytes: UnsafeBufferPointer<UInt8>, holdingNoneOf names: SensitiveNameFilter) -> Form {
        names.withTables { tables in
            var reader = Reader(bytes: bytes, names: tables, allowsSpace: true)
            return reader.document() ? (reader.sawSpace ? .spaced : .asIs) : .other
        }
    }

    /// Appends `bytes`, a `.spaced` document (`form`), without the whitespace between its tokens:
    /// the writer's form. Its strings hold no `\`, so each quote opens or closes one, and a
    /// space inside one is kept.
    package static func appendWithoutSpace(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: bytes.count))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            copyWithoutSpace(bytes, into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
        out.removeLast(bytes.count - written)
    }

    /// `appendWithoutSpace` into a new string, written once in place (a 60 MB document is not
    /// copied again to make the string).
    package static func withoutSpace(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { copyWithoutSpace(bytes, into: $0) }
    }

    private static func copyWithoutSpace(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var at = 0
        var inString = false
        for byte in bytes {
            if byte == UInt8(ascii: "\"") {
                inString.toggle()
            } else if !inString, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                continue
            }
            out[at] = byte
            at += 1
        }
        return at
    }

    /// The end of the character whose UTF-8 starts at `i` (a byte from 0x80) when the writer
    /// writes it as it is; nil when it does not, or when the bytes are not well-formed UTF-8
    /// (the reader's string would hold U+FFFD in their place): an overlong form, a surrogate,
    /// a value past U+10FFFF, a sequence cut short. `lookingForNames`: also nil for the
    /// characters Unicode lowercases to ASCII (`SensitiveNameFilter.lowercasesToASCII`): the name
    /// rules read names lowercased, so `to\u{212A}en` names a token though no byte spells it.
    static func writtenCharacterEnd(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, lookingForNames: Bool) -> Int? {
        // The standard library's reading of UTF-8, as `RawPath.decode` uses it: one scalar or an error.
        var parser = Unicode.UTF8.ForwardParser()
        var input = UnsafeBufferPointer(rebasing: bytes[i...]).makeIterator()
        guard case .valid(let encoded) = parser.parseScalar(from: &input) else { return nil }
        let value = Unicode.UTF8.decode(encoded).value
        guard !TerminalText.isControl(value) else { return nil }
        guard !lookingForNames || !SensitiveNameFilter.lowercasesToASCII(value) else { return nil }
        return i + encoded.count
    }

    public static func isWrittenAsIs(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isWrittenAsIs($0) }
    }

    /// A strict reading over the scanners' cursor (its literal matching is shared; what this
    /// reader adds is the writer's form).
    private struct Reader {
        var cursor: JSONByteCursor
        var bytes: UnsafeBufferPointer<UInt8> { cursor.bytes }
        var index: Int {
            get { cursor.index }
            set { cursor.index = newValue }
        }
        /// Names no string may hold (nil: not looked for).
        let names: SensitiveNameFilter.Tables?
        /// Whether JSON's whitespace may stand between tokens (`form`); `sawSpace` tells if some did.
        let allowsSpace: Bool
        var sawSpace = false

        init(bytes: UnsafeBufferPointer<UInt8>, names: SensitiveNameFilter.Tables?, allowsSpace: Bool) {
            cursor = JSONByteCursor(bytes: bytes)
            self.names = names
            self.allowsSpace = allowsSpace
        }

        /// The whole text is one value in the form.
        mutating func document() -> Bool {
            space()
            guard value(depth: 0) else { return false }
            space()
            return index == bytes.count
        }

        /// Steps over whitespace between tokens where it is allowed (where it is not, the next
        /// test of a token's byte refuses it).
        @inline(__always) mutating func space() {
            guard allowsSpace, index < bytes.count, bytes[index] <= 0x20 else { return }
            let start = index
            cursor.skipWhitespaceRun()
            if index > start { sawSpace = true }
        }

        mutating func value(depth: Int) -> Bool {
            guard index < bytes.count, depth < VerbatimJSON.maxDepth else { return false }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "t"): return cursor.skipLiteral("true")
            case UInt8(ascii: "f"): return cursor.skipLiteral("false")
            case UInt8(ascii: "n"): return cursor.skipLiteral("null")
            default: return number()
            }
        }

        /// The string's content range; nil unless every byte is printable ASCII without `\` or
        /// starts a character `writtenCharacterEnd` accepts, and (with `names`) no name starts in it.
        /// (Every byte of every string passes here: the loop keeps its position in a local and
        /// decides once whether names are looked for. A refused string leaves the position
        /// anywhere: the whole reading is then refused.)
        mutating func string() -> Range<Int>? {
            let start = index + 1
            let count = bytes.count
            var i = start
            if let names {
                // The byte before the content is a quote, which starts no name.
                var previous = UInt8(ascii: "\"")
                while i < count {
                    let b = bytes[i]
                    if b == UInt8(ascii: "\"") {
                        index = i + 1
                        return start..<i
                    }
                    guard VerbatimJSON.isPlainStringByte(b) else {
                        // No name holds a byte from 0x80, so a character outside ASCII ends any
                        // name before it, as in the lowercased text the name rules read.
                        guard b >= 0x80, let end = VerbatimJSON.writtenCharacterEnd(bytes, at: i, lookingForNames: true) else {
                            return nil
                        }
                        previous = 0x80
                        i = end
                        continue
                    }
                    let lower = SensitiveNameFilter.lower(b)
                    if names.pairMayStart(previous, lower), names.nameStarts(at: i - 1, in: bytes) { return nil }
                    previous = lower
                    i += 1
                }
            } else {
                while i < count {
                    let b = bytes[i]
                    if b == UInt8(ascii: "\"") {
                        index = i + 1
                        return start..<i
                    }
                    guard VerbatimJSON.isPlainStringByte(b) else {
                        guard b >= 0x80, let end = VerbatimJSON.writtenCharacterEnd(bytes, at: i, lookingForNames: false) else {
                            return nil
                        }
                        i = end
                        continue
                    }
                    i += 1
                }
            }
            return nil
        }

        mutating func object(depth: Int) -> Bool {
            index += 1
            space()
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return true
            }
            // Each key is read like any string; none is compared with another (a repeated key is
            // written twice by the tree too), so an object's keys cost time linear in them.
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), string() != nil else { return false }
                space()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                space()
                guard value(depth: depth + 1) else { return false }
                space()
                guard index < bytes.count else { return false }
                switch bytes[index] {
                case UInt8(ascii: ","):
                    index += 1
                    space()
                case UInt8(ascii: "}"):
                    index += 1
                    return true
                default: return false
                }
            }
        }

        mutating func array(depth: Int) -> Bool {
            index += 1
            space()
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return true
            }
            while true {
                guard value(depth: depth + 1) else { return false }
                space()
                guard index < bytes.count else { return false }
                switch bytes[index] {
                case UInt8(ascii: ","):
                    index += 1
                    space()
                case UInt8(ascii: "]"):
                    index += 1
                    return true
                default: return false
                }
            }
        }

        @inline(__always) func isDigit(_ at: Int) -> Bool {
            at < bytes.count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9")
        }

        /// An integer or a plain real in the writer's own form (see the type's comment).
        mutating func number() -> Bool {
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let integerStart = index
            guard isDigit(index) else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if isDigit(index) { return false }
            } else {
                while isDigit(index) { index += 1 }
            }
            let integerDigits = index - integerStart
            guard index < bytes.count, bytes[index] == UInt8(ascii: ".") else {
                // Int64 holds every integer of 18 digits; `-0` reads as 0 and is written so.
                let isZero = integerDigits == 1 && bytes[integerStart] == UInt8(ascii: "0")
                return integerDigits <= 18 && !(negative && isZero) && !isExponent(index)
            }
            index += 1
            let fractionStart = index
            while isDigit(index) { index += 1 }
            let fractionDigits = index - fractionStart
            guard fractionDigits > 0, !isExponent(index), integerDigits <= 16 else { return false }
            let integerIsZero = integerDigits == 1 && bytes[integerStart] == UInt8(ascii: "0")
            let fractionIsZero = fractionDigits == 1 && bytes[fractionStart] == UInt8(ascii: "0")
            if fractionIsZero {
                // `X.0`: the significant digits are X's, without its trailing zeros.
                var end = fractionStart - 1
                while end > integerStart + 1, bytes[end - 1] == UInt8(ascii: "0") { end -= 1 }
                return integerIsZero || end - integerStart <= 15
            }
            guard bytes[index - 1] != UInt8(ascii: "0") else { return false }
            if integerIsZero {
                // 0.000F: Swift writes values below 1e-4 with an exponent.
                var zeros = 0
                while zeros < fractionDigits, bytes[fractionStart + zeros] == UInt8(ascii: "0") { zeros += 1 }
                return zeros <= 3 && fractionDigits - zeros <= 15
            }
            return integerDigits + fractionDigits <= 15
        }

        func isExponent(_ at: Int) -> Bool {
            at < bytes.count && (bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E"))
        }
    }
}
