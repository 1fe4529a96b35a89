import BGeoForensics
import Foundation

extension JSONSanitizer {
    /// `measure` of a document read from its bytes, without building its tree (issue 27: the
    /// survey parsed every row of a dump into a tree only to find its longitudes), for the
    /// common form. Returns false, having measured nothing, when the document needs the tree: an
    /// escape anywhere, a number with an exponent or of more than 30
    /// characters (the parser may refuse it as out of range), nesting deeper than 32, a string
    /// that may hold JSON, a `headers` object, or text that is not JSON. The caller then parses it
    /// and calls `measure`. Otherwise it finds exactly the longitudes `measure` finds: the walk
    /// below is `walkObject`'s in `.measure` mode, member by member, duplicates included.
    func measure(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Text outside ASCII is read as the tree reads it: a member's kind from its name's bytes
        // (`kind(of:)`, remembered by bytes), strings skipped (stop 56: a record with
        // `"city":"Kraków"` took the tree).
        guard !bytes.isEmpty, !ByteSearch.contains(0x5C, in: bytes) else { return false }
        var walk = MeasureWalk(cursor: JSONByteCursor(bytes: bytes), sanitizer: self)
        walk.cursor.skipWhitespace()
        guard walk.value(depth: 0, records: true) else { return false }
        walk.cursor.skipWhitespace()
        guard walk.cursor.index == bytes.count else { return false }
        // Only a document the parser accepts is measured, as the tree's walk measures only those.
        for longitude in walk.longitudes { extent.add(longitude: longitude) }
        return true
    }
}

/// One document's measure walk over its bytes (`JSONSanitizer.measure(bytes:)`).
private struct MeasureWalk {
    var cursor: JSONByteCursor
    let sanitizer: JSONSanitizer
    var longitudes: [Double] = []

    init(cursor: JSONByteCursor, sanitizer: JSONSanitizer) {
        self.cursor = cursor
        self.sanitizer = sanitizer
    }

    /// Reads one value; `records` false reads it as the walk would not descend into it (its
    /// grammar and numbers still checked, for the parser reads the whole document).
    mutating func value(depth: Int, records: Bool) -> Bool {
        guard depth < 32 else { return false }
        switch cursor.peek {
        case UInt8(ascii: "{"): return object(depth: depth, records: records)
        case UInt8(ascii: "["):
            cursor.index += 1
            cursor.skipWhitespace()
            if cursor.peek == UInt8(ascii: "]") { cursor.index += 1; return true }
            while true {
                cursor.skipWhitespace()
                guard value(depth: depth + 1, records: records) else { return false }
                cursor.skipWhitespace()
                if cursor.peek == UInt8(ascii: ",") { cursor.index += 1; continue }
                if cursor.peek == UInt8(ascii: "]") { cursor.index += 1; return true }
                return false
            }
        case UInt8(ascii: "\""):
            // A string that may hold a document is walked as one by the tree: left to it.
            let start = cursor.index + 1
            guard cursor.skipString() else { return false }
            if records, start < cursor.index - 1,
               cursor.bytes[start] == UInt8(ascii: "{") || cursor.bytes[start] == UInt8(ascii: "[") { return false }
            return true
        case UInt8(ascii: "t"): return cursor.skipLiteral("true")
        case UInt8(ascii: "f"): return cursor.skipLiteral("false")
        case UInt8(ascii: "n"): return cursor.skipLiteral("null")
        default: return number() != nil
        }
    }

    /// A number as the parser's tree gives it (`doubleValue`), nil for a form left to the tree.
    mutating func number() -> Double? {
        let start = cursor.index
        guard let value = cursor.scanNumber(), cursor.index - start <= 30 else { return nil }
        var isInteger = true
        for i in start..<cursor.index {
            let b = cursor.bytes[i]
            if b | 0x20 == UInt8(ascii: "e") { return nil }
            if b == UInt8(ascii: ".") { isInteger = false }
        }
        // The parser reads an integer literal as an integer: "-0" is 0, not -0.0.
        return isInteger && value == 0 ? 0 : value
    }

    mutating func object(depth: Int, records: Bool) -> Bool {
        cursor.index += 1
        cursor.skipWhitespace()
        if cursor.peek == UInt8(ascii: "}") { cursor.index += 1; return true }
        while true {
            cursor.skipWhitespace()
            guard let keyRange = cursor.scanKey() else { return false }
            cursor.skipWhitespace()
            let kind = sanitizer.kind(of: UnsafeBufferPointer(rebasing: cursor.bytes[keyRange]))
            guard member(kind, depth: depth, records: records) else { return false }
            cursor.skipWhitespace()
            if cursor.peek == UInt8(ascii: ",") { cursor.index += 1; continue }
            if cursor.peek == UInt8(ascii: "}") { cursor.index += 1; return true }
            return false
        }
    }

    /// One member's value, as `walkObject` treats a member of its key's kind in `.measure` mode.
    private mutating func member(_ kind: JSONSanitizer.KeyKind, depth: Int, records: Bool) -> Bool {
        let isNumber = cursor.peek == UInt8(ascii: "-") || cursor.peek &- 48 < 10
        let isObject = cursor.peek == UInt8(ascii: "{")
        switch kind {
        case .sensitive where !isObject:
            return value(depth: depth + 1, records: false)
        case .headers where isObject:
            return false
        case .extras:
            // `customerData` walks the value only when extras are kept.
            return value(depth: depth + 1, records: records && sanitizer.extras == .keep)
        case .longitude where isNumber:
            guard let longitude = number() else { return false }
            if records, (-180.0...180.0).contains(longitude) { longitudes.append(longitude) }
            return true
        case .latitude where isNumber, .heading where isNumber:
            return number() != nil
        default:
            return value(depth: depth + 1, records: records)
        }
    }
}
