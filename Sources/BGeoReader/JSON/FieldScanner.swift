import Foundation

/// A value picked out of a JSON document by `FieldScanner`.
public enum ScannedValue: Sendable, Equatable {
    case missing
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// An object or array (not materialised).
    case composite

    public var double: Double? { if case .number(let v) = self { return v }; return nil }
    public var string: String? { if case .string(let v) = self { return v }; return nil }
    public var bool: Bool? { if case .bool(let v) = self { return v }; return nil }
    public var isMissing: Bool { self == .missing }
}

/// Validates a JSON document in one pass and materialises only the fields asked for (paths up to
/// two levels deep, e.g. `uuid`, `coords.latitude`). This is the hot path of every million-row
/// scan: it is several times faster than building a full tree or asking SQLite's JSON1 for each
/// field, and it doubles as the validity check (NaN, truncation, bad escapes are all rejected).
public struct FieldScanner: Sendable {
    /// Flat, trivially-copyable tables (no per-key arrays): the hot loop then never touches a
    /// reference count.
    private struct Top: Sendable {
        let keyStart: Int
        let keyLength: Int
        /// Slot when the top-level key itself is wanted, else -1.
        let slot: Int
        let childStart: Int
        let childCount: Int
    }

    private struct Child: Sendable {
        let keyStart: Int
        let keyLength: Int
        let slot: Int
    }

    private let keyBytes: [UInt8]
    private let tops: [Top]
    private let children: [Child]
    /// The paths, in slot order.
    public let paths: [String]

    public init(paths: [String]) {
        self.paths = paths
        var order: [String] = []
        var slots: [String: Int] = [:]
        var childPaths: [String: [(String, Int)]] = [:]
        for (slot, path) in paths.enumerated() {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            if !order.contains(parts[0]) { order.append(parts[0]) }
            if parts.count == 1 {
                slots[parts[0]] = slot
            } else {
                childPaths[parts[0], default: []].append((parts[1], slot))
            }
        }
        var bytes: [UInt8] = []
        var tops: [Top] = []
        var children: [Child] = []
        for name in order {
            let keyStart = bytes.count
            bytes.append(contentsOf: Array(name.utf8))
            let childStart = children.count
            for (childName, slot) in childPaths[name] ?? [] {
                let start = bytes.count
                bytes.append(contentsOf: Array(childName.utf8))
                children.append(Child(keyStart: start, keyLength: childName.utf8.count, slot: slot))
            }
            tops.append(Top(keyStart: keyStart, keyLength: name.utf8.count, slot: slots[name] ?? -1,
                            childStart: childStart, childCount: children.count - childStart))
        }
        keyBytes = bytes
        self.tops = tops
        self.children = children
    }

    /// A picked value as found, with nothing built: numbers and literals decoded, a string as
    /// the byte range of its contents (inside the quotes) in the scanned document. Trivially
    /// copyable, so a scan writes its slots without touching a reference count; `value(in:)`
    /// builds the `ScannedValue` (and its String) only for the fields a caller keeps.
    public struct Field: Sendable, Equatable {
        public enum Kind: UInt8, Sendable {
            case missing, null, bool, number, composite
            /// A string without escapes: its text is exactly `bytes[start..<end]`.
            case string
            /// A string with escapes (already checked to decode): `bytes[start..<end]` is its raw
            /// contents, decoded by `value(in:)`.
            case escapedString
        }
        public var kind: Kind
        public var flag: Bool
        public var number: Double
        public var start: Int
        public var end: Int

        static let missing = Field(kind: .missing, flag: false, number: 0, start: 0, end: 0)

        public var isMissing: Bool { kind == .missing }
        public var isComposite: Bool { kind == .composite }
        public var isString: Bool { kind == .string || kind == .escapedString }
        public var double: Double? { kind == .number ? number : nil }
        public var bool: Bool? { kind == .bool ? flag : nil }

        /// The number as an integer, read as `JSONValue.intValue` reads the parsed tree (one rule
        /// for both paths): an integer literal that fits 64 bits as written, any other number when
        /// it is integral and below 9e15 in size; nil for anything else.
        public func integer(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
            guard kind == .number else { return nil }
            let literal = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if !literal.isEmpty, !literal.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) {
                // Up to 19 digits fit; a longer literal is read as the parser reads it (a double).
                if literal.count <= 20, let value = Int64(String(decoding: literal, as: UTF8.self)) { return Int(value) }
            }
            return number.rounded() == number && abs(number) < 9e15 ? Int(number) : nil
        }

        /// The string's text (escapes decoded) from the document it was scanned in; nil when not a string.
        public func string(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
            switch kind {
            case .string: return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            case .escapedString: return Field.decodeEscaped(UnsafeBufferPointer(rebasing: bytes[(start - 1)..<(end + 1)]))
            default: return nil
            }
        }

        /// Calls `body` with the string's UTF-8 bytes (escapes decoded); nil when not a string.
        public func withStringBytes<R>(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
            switch kind {
            case .string: return body(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            case .escapedString:
                var text = string(in: bytes) ?? ""
                return text.withUTF8 { body($0) }
            default: return body(nil)
            }
        }

        /// The value as `scan(_:into:)` reports it.
        public func value(in bytes: UnsafeBufferPointer<UInt8>) -> ScannedValue {
            switch kind {
            case .missing: return .missing
            case .null: return .null
            case .bool: return .bool(flag)
            case .number: return .number(number)
            case .composite: return .composite
            case .string, .escapedString: return .string(string(in: bytes) ?? "")
            }
        }

        /// A quoted string with escapes, decoded by the strict parser (nil when it refuses it,
        /// e.g. an unpaired surrogate).
        static func decodeEscaped(_ quoted: UnsafeBufferPointer<UInt8>) -> String? {
            let text = String(decoding: quoted, as: UTF8.self)
            guard case .string(let s)? = try? JSONParser.parse(text) else { return nil }
            return s
        }
    }

    /// Scans `bytes`; fills `fields` (resized to `paths.count`) without building any string.
    /// An object or array field keeps its byte range too (`start..<end`, brackets included).
    /// Returns false when the document is not valid JSON or not an object (fields are then
    /// unspecified). Same verdict and same values as `scan(_:into:)`.
    public func scan(_ bytes: UnsafeBufferPointer<UInt8>, into fields: inout [Field]) -> Bool {
        if fields.count != paths.count { fields = Array(repeating: .missing, count: paths.count) }
        return fields.withUnsafeMutableBufferPointer { scan(bytes, slots: $0) }
    }

    /// Scans `bytes` and calls `body` with the fields (in `paths` order), or with nil when the
    /// document is not valid JSON or not an object. Nothing is allocated on the heap. Inlinable:
    /// called from another module unspecialised, each call looked up its generic metadata at run
    /// time (1 % of a timeline, which calls it per upload and engine row).
    @inlinable
    public func withFields<R>(of bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<Field>?) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Field.self, capacity: paths.count) { slots in
            body(scan(bytes, slots: slots) ? UnsafeBufferPointer(slots) : nil)
        }
    }

    /// Scans `bytes`; fills `values` (resized to `paths.count`). Returns false when the document is
    /// not valid JSON or not an object (values are then unspecified).
    public func scan(_ bytes: UnsafeBufferPointer<UInt8>, into values: inout [ScannedValue]) -> Bool {
        if values.count != paths.count { values = Array(repeating: .missing, count: paths.count) }
        return withUnsafeTemporaryAllocation(of: Field.self, capacity: paths.count) { slots in
            guard scan(bytes, slots: slots) else { return false }
            for i in 0..<paths.count { values[i] = slots[i].value(in: bytes) }
            return true
        }
    }

    @usableFromInline
    func scan(_ bytes: UnsafeBufferPointer<UInt8>, slots: UnsafeMutableBufferPointer<Field>) -> Bool {
        for i in 0..<slots.count { slots.initializeElement(at: i, to: .missing) }
        return keyBytes.withUnsafeBufferPointer { keys in
            tops.withUnsafeBufferPointer { tops in
                children.withUnsafeBufferPointer { children in
                    var cursor = JSONByteCursor(bytes: bytes)
                    cursor.skipWhitespace()
                    guard cursor.peek == UInt8(ascii: "{") else { return false }
                    let tables = Tables(keys: keys, tops: tops, children: children)
                    guard FieldScanner.scanTopObject(&cursor, tables, slots) else { return false }
                    cursor.skipWhitespace()
                    return cursor.index == bytes.count
                }
            }
        }
    }

    /// True when `bytes` is one valid JSON value (RFC 8259, any type), surrounded only by
    /// whitespace. Nothing is materialised: this is the cheapest full validity check here
    /// (about twice as fast as SQLite's json_valid, which builds a parse tree).
    public static func isValidJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var cursor = JSONByteCursor(bytes: bytes)
        cursor.skipWhitespace()
        guard cursor.index < bytes.count, cursor.skipValue(depth: 0) else { return false }
        cursor.skipWhitespace()
        return cursor.index == bytes.count
    }

    /// Convenience for strings.
    public func scan(_ text: String) -> [ScannedValue]? {
        var copy = text
        var values: [ScannedValue] = []
        let ok = copy.withUTF8 { scan($0, into: &values) }
        return ok ? values : nil
    }

    private struct Tables {
        let keys: UnsafeBufferPointer<UInt8>
        let tops: UnsafeBufferPointer<Top>
        let children: UnsafeBufferPointer<Child>
    }

    /// Whether the key at `range` is the name at `keys[start..<start + length]`. Names are
    /// short: eight bytes at a time (the first and last eight overlap below sixteen), the byte
    /// loop only below eight.
    @inline(__always)
    private static func matches(_ c: JSONByteCursor, _ range: Range<Int>, _ keys: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> Bool {
        guard range.count == length else { return false }
        guard length > 0 else { return true }
        let a = UnsafeRawPointer(c.bytes.baseAddress.unsafelyUnwrapped + range.lowerBound)
        let b = UnsafeRawPointer(keys.baseAddress.unsafelyUnwrapped + start)
        if length >= 8 {
            if length > 16 { return memcmp(a, b, length) == 0 }
            return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
                && a.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        }
        var k = 0
        while k < length {
            if a.load(fromByteOffset: k, as: UInt8.self) != b.load(fromByteOffset: k, as: UInt8.self) { return false }
            k += 1
        }
        return true
    }

    /// The index of the wanted name the key at `range` is among `count` names from `first`
    /// (`name(i)` gives one's place in `keys`), or -1. An escaped key is compared as the parser
    /// decodes it (`"\u0075uid"` is `uuid`); one that does not decode is no wanted name.
    @inline(__always)
    private static func wanted(_ c: JSONByteCursor, _ range: Range<Int>, escaped: Bool, _ keys: UnsafeBufferPointer<UInt8>,
                               _ first: Int, _ count: Int, _ name: (Int) -> (start: Int, length: Int)) -> Int {
        if !escaped {
            for i in first..<(first + count) {
                let (start, length) = name(i)
                if matches(c, range, keys, start, length) { return i }
            }
            return -1
        }
        guard var decoded = Field.decodeEscaped(UnsafeBufferPointer(rebasing: c.bytes[(range.lowerBound - 1)..<(range.upperBound + 1)]))
        else { return -1 }
        return decoded.withUTF8 { text in
            for i in first..<(first + count) {
                let (start, length) = name(i)
                if text.elementsEqual(UnsafeBufferPointer(rebasing: keys[start..<(start + length)])) { return i }
            }
            return -1
        }
    }

    private static func scanTopObject(_ c: inout JSONByteCursor, _ t: Tables, _ values: UnsafeMutableBufferPointer<Field>) -> Bool {
        c.index += 1
        c.skipWhitespace()
        if c.peek == UInt8(ascii: "}") { c.index += 1; return true }
        // A repeated key's first value is the one read, as the parser's tree reads it: a wanted
        // name met again is skipped (a name with children included, whose first object counts).
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: t.tops.count) { met in
            met.initialize(repeating: false)
            while true {
                c.skipWhitespace()
                var escaped = false
                guard let keyRange = c.scanKey(sawEscape: &escaped) else { return false }
                var found = wanted(c, keyRange, escaped: escaped, t.keys, 0, t.tops.count) { (t.tops[$0].keyStart, t.tops[$0].keyLength) }
                if found >= 0 {
                    if met[found] { found = -1 } else { met[found] = true }
                }
                c.skipWhitespace()
                if found >= 0 {
                    let top = t.tops[found]
                    if top.childCount > 0, c.peek == UInt8(ascii: "{") {
                        if top.slot >= 0 { values[top.slot].kind = .composite }
                        guard scanChildObject(&c, t, top.childStart, top.childCount, values) else { return false }
                    } else if top.slot >= 0 {
                        guard c.scanCapturedValue(into: &values[top.slot]) else { return false }
                    } else {
                        guard c.skipValue(depth: 1) else { return false }
                    }
                } else {
                    guard c.skipValue(depth: 1) else { return false }
                }
                c.skipWhitespace()
                switch c.peek {
                case UInt8(ascii: ","): c.index += 1
                case UInt8(ascii: "}"): c.index += 1; return true
                default: return false
                }
            }
        }
    }

    private static func scanChildObject(_ c: inout JSONByteCursor, _ t: Tables, _ start: Int, _ count: Int,
                                        _ values: UnsafeMutableBufferPointer<Field>) -> Bool {
        c.index += 1
        c.skipWhitespace()
        if c.peek == UInt8(ascii: "}") { c.index += 1; return true }
        while true {
            c.skipWhitespace()
            var escaped = false
            guard let keyRange = c.scanKey(sawEscape: &escaped) else { return false }
            let found = wanted(c, keyRange, escaped: escaped, t.keys, start, count) { (t.children[$0].keyStart, t.children[$0].keyLength) }
            // Each child is read once per object (its parent's first), so a captured slot is a
            // repeated name: its first value stays.
            let slot = found >= 0 && values[t.children[found].slot].isMissing ? t.children[found].slot : -1
            c.skipWhitespace()
            if slot >= 0 {
                guard c.scanCapturedValue(into: &values[slot]) else { return false }
            } else {
                guard c.skipValue(depth: 2) else { return false }
            }
            c.skipWhitespace()
            switch c.peek {
            case UInt8(ascii: ","): c.index += 1
            case UInt8(ascii: "}"): c.index += 1; return true
            default: return false
            }
        }
    }
}

extension FieldScanner.Field {
    /// For an array field scanned from `bytes`, calls `body` once per string element, in order,
    /// with a way to build its text (escapes decoded); other elements, and a string the strict
    /// parser would refuse, are skipped. Reads what `arrayValue?.compactMap(\.stringValue)` of
    /// the parsed value gives, building only the strings the caller asks for.
    public func forEachStringElement(in bytes: UnsafeBufferPointer<UInt8>, _ body: (_ text: () -> String) -> Void) {
        guard kind == .composite, start < end, end <= bytes.count, bytes[start] == UInt8(ascii: "[") else { return }
        var cursor = JSONByteCursor(bytes: UnsafeBufferPointer(rebasing: bytes[..<end]))
        cursor.index = start + 1
        while true {
            cursor.skipWhitespace()
            guard cursor.index < end, cursor.peek != UInt8(ascii: "]") else { return }
            let elementStart = cursor.index
            if cursor.peek == UInt8(ascii: "\"") {
                var escaped = false
                guard cursor.skipString(sawEscape: &escaped) else { return }
                let quoted = UnsafeBufferPointer(rebasing: bytes[elementStart..<cursor.index])
                if !escaped {
                    body { String(decoding: UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast()), as: UTF8.self) }
                } else if let text = FieldScanner.Field.decodeEscaped(quoted) {
                    body { text }
                }
            } else {
                guard cursor.skipValue(depth: 2) else { return }
            }
            cursor.skipWhitespace()
            guard cursor.peek == UInt8(ascii: ",") else { return }
            cursor.index += 1
        }
    }
}
