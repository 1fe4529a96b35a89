import BGeoForensics
import Foundation

/// Merges the config's `extras` into stored records as bytes: the record is copied as stored
/// and only its `extras` member is rewritten (config keys first, in config order, each with the
/// record's own value when it has one; then the record's other keys), or appended when the
/// record has none. Same result as parsing the record, merging and writing it back
/// (`RequestBuilder.mergedByParsing`) for the compact JSON the SDK stores, at the cost of a
/// search (and, when `extras` is the last member, a walk back over it) instead of a parse and a
/// write per record: with extras configured (every real config has them) that parse was most
/// of a drain. A record the scan is not sure about (escaped or
/// duplicate keys, malformed text, more than `maxOwnKeys` extras of its own) is left to the
/// general path (`append` returns false).
struct ExtrasMerger: Sendable {
    /// Config extras: unescaped key bytes (to compare), `"key":` and the value as JSON.
    private let keys: [[UInt8]]
    private let keyPrefixes: [[UInt8]]
    private let values: [[UInt8]]
    /// `{"k":v,…}`: the whole config extras object.
    private let object: [UInt8]
    static let maxOwnKeys = 32

    init(extras: JSONObject) {
        let writer = JSONWriter()
        var keys: [[UInt8]] = []
        var prefixes: [[UInt8]] = []
        var values: [[UInt8]] = []
        for member in extras {
            var key = ""
            writer.writeString(member.key, into: &key)
            var value = ""
            writer.write(member.value, into: &value, indent: 0)
            keys.append(Array(member.key.utf8))
            prefixes.append(Array((key + ":").utf8))
            values.append(Array(value.utf8))
        }
        self.keys = keys
        keyPrefixes = prefixes
        self.values = values
        object = Array(writer.string(.object(extras)).utf8)
    }

    /// Appends `record` with the config extras merged to `out`. False (and `out` unchanged)
    /// when the record must go through the general path.
    func append(_ record: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        switch ExtrasMerger.locateFast(record) {
        case .none?:
            appendWithoutOwn(record, close: ExtrasMerger.lastNonSpace(record, before: record.count)!, to: &out)
            return true
        case .object(let value)?:
            return mergeObject(record, value, into: &out)
        case .null(let value)?:
            replace(record, value, to: &out)
            return true
        case nil:
            return appendScanning(record, to: &out)
        }
    }

    /// Where the record's own extras are, found without walking the whole record in the shapes
    /// the SDK stores: no `"extras"` anywhere (none), or `extras` as the last member (found
    /// walking back from the end). Nil when it takes the full scan. Relies on the text being
    /// valid JSON, which the working copy checked for every queued row (`json_valid`).
    enum Located {
        case none
        case object(Range<Int>)
        case null(Range<Int>)
    }

    static func locateFast(_ record: UnsafeBufferPointer<UInt8>) -> Located? {
        guard record.baseAddress != nil, let close = lastNonSpace(record, before: record.count),
              record[close] == UInt8(ascii: "}") else { return nil }
        let found = firstExtrasKey(record)
        // A backslash before the key could spell "extras" with an escape somewhere: full scan.
        if ByteSearch.contains(UInt8(ascii: "\\"), in: UnsafeBufferPointer(rebasing: record[..<(found ?? record.count)])) { return nil }
        guard let keyStart = found else { return Located.none }
        // The last member's value, walking back from the closing brace.
        guard let valueEnd = lastNonSpace(record, before: close) else { return nil }
        let valueStart: Int
        let located: (Range<Int>) -> Located
        switch record[valueEnd] {
        case UInt8(ascii: "}"):
            guard let open = openingBrace(record, closing: valueEnd) else { return nil }
            valueStart = open
            located = Located.object
        case UInt8(ascii: "l"):
            guard valueEnd >= 3, record[(valueEnd - 3)...valueEnd].elementsEqual("null".utf8) else { return nil }
            valueStart = valueEnd - 3
            located = Located.null
        default:
            return nil
        }
        // Its key must be the first "extras" of the text (any later one is inside the value).
        guard let colon = lastNonSpace(record, before: valueStart), record[colon] == UInt8(ascii: ":"),
              let keyClose = lastNonSpace(record, before: colon), record[keyClose] == UInt8(ascii: "\""),
              keyClose == keyStart + 7 else { return nil }
        return located(valueStart..<(valueEnd + 1))
    }

    /// Offset of the first `"extras"` in the text (a key or not), found from its rare `x`.
    static func firstExtrasKey(_ record: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = record.baseAddress else { return nil }
        let word: StaticString = "\"extras\""
        var from = 2
        while let x = ByteSearch.firstIndex(of: UInt8(ascii: "x"), in: record, from: from) {
            let start = x - 2
            if start + 8 <= record.count, memcmp(base + start, word.utf8Start, 8) == 0 { return start }
            from = x + 1
        }
        return nil
    }

    /// The last index before `end` that is not JSON whitespace.
    static func lastNonSpace(_ bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> Int? {
        var i = end - 1
        while i >= 0, Scanner.isSpace(bytes[i]) { i -= 1 }
        return i >= 0 ? i : nil
    }

    /// The `{` / `[` that opens the container closing at `closing`, walking back over strings.
    static func openingBrace(_ bytes: UnsafeBufferPointer<UInt8>, closing: Int) -> Int? {
        var depth = 0
        var i = closing
        while i >= 0 {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                guard let open = openingQuote(bytes, closing: i) else { return nil }
                i = open
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth -= 1
                if depth == 0 { return i }
            default:
                break
            }
            i -= 1
        }
        return nil
    }

    /// The quote opening the string that closes at `closing`: the previous quote not escaped
    /// (preceded by an even number of backslashes).
    static func openingQuote(_ bytes: UnsafeBufferPointer<UInt8>, closing: Int) -> Int? {
        var i = closing - 1
        while i >= 0 {
            if bytes[i] == UInt8(ascii: "\"") {
                var slashes = 0
                while i - 1 - slashes >= 0, bytes[i - 1 - slashes] == UInt8(ascii: "\\") { slashes += 1 }
                if slashes % 2 == 0 { return i }
            }
            i -= 1
        }
        return nil
    }

    /// The record with the config's extras appended as its last member (it has none).
    private func appendWithoutOwn(_ record: UnsafeBufferPointer<UInt8>, close: Int, to out: inout [UInt8]) {
        let empty = ExtrasMerger.lastNonSpace(record, before: close).map { record[$0] == UInt8(ascii: "{") } ?? true
        out.append(contentsOf: UnsafeBufferPointer(rebasing: record[0..<close]))
        if !empty { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: #""extras":"#.utf8)
        out.append(contentsOf: object)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: record[close...]))
    }

    /// The record with the value at `range` (`null`) replaced by the config's extras.
    private func replace(_ record: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: record[0..<range.lowerBound]))
        out.append(contentsOf: object)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: record[range.upperBound...]))
    }

    /// The general byte path: every top-level member walked to find `extras`.
    private func appendScanning(_ record: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        // The top level: where `extras` is, and where the object closes.
        var scanner = Scanner(bytes: record)
        var extrasValue: Range<Int>?
        var members = 0
        var escaped = false
        guard let close = scanner.object({ key, keyEscaped, value in
            members += 1
            if keyEscaped { escaped = true; return false }
            if Scanner.equal(record, key, "extras") {
                if extrasValue != nil { return false }
                extrasValue = value
            }
            return true
        }), !escaped, scanner.atEnd else { return false }
        guard let extras = extrasValue else {
            appendWithoutOwn(record, close: close, to: &out)
            return true
        }
        switch record[extras.lowerBound] {
        case UInt8(ascii: "n"):
            replace(record, extras, to: &out)
            return true
        case UInt8(ascii: "{"):
            return mergeObject(record, extras, into: &out)
        default:
            // Extras of another type: the record is sent untouched.
            out.append(contentsOf: record)
            return true
        }
    }

    /// The record's own extras object at `range`, merged under the config's.
    private func mergeObject(_ record: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into out: inout [UInt8]) -> Bool {
        withUnsafeTemporaryAllocation(of: (key: Range<Int>, member: Range<Int>, value: Range<Int>, config: Int).self,
                                      capacity: ExtrasMerger.maxOwnKeys) { own in
            var count = 0
            var ok = true
            var scanner = Scanner(bytes: record, i: range.lowerBound)
            let close = scanner.object { key, keyEscaped, value in
                guard !keyEscaped, count < ExtrasMerger.maxOwnKeys else { ok = false; return false }
                for j in 0..<count where Scanner.equal(record, own[j].key, record, key) { ok = false; return false }
                let config = keys.firstIndex { Scanner.equal(record, key, $0) } ?? -1
                own[count] = (key, (key.lowerBound - 1)..<value.upperBound, value, config)
                count += 1
                return true
            }
            guard ok, let close, close + 1 == range.upperBound else { return false }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: record[0..<range.lowerBound]))
            out.append(UInt8(ascii: "{"))
            var first = true
            for index in keys.indices {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: keyPrefixes[index])
                if let mine = (0..<count).first(where: { own[$0].config == index }) {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: record[own[mine].value]))
                } else {
                    out.append(contentsOf: values[index])
                }
            }
            for j in 0..<count where own[j].config < 0 {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                // `"key":value` as stored, from the key's opening quote.
                out.append(contentsOf: UnsafeBufferPointer(rebasing: record[own[j].member]))
            }
            out.append(UInt8(ascii: "}"))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: record[range.upperBound...]))
            return true
        }
    }

    /// A forgiving scanner over JSON text: finds members and value ranges, parses nothing.
    /// Anything unexpected makes it return nil (the caller then takes the general path).
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        var atEnd: Bool {
            var j = i
            while j < bytes.count, Scanner.isSpace(bytes[j]) { j += 1 }
            return j == bytes.count
        }

        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

        static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
            guard range.count == word.utf8CodeUnitCount else { return false }
            let w = word.utf8Start
            for k in 0..<range.count where bytes[range.lowerBound + k] != w[k] { return false }
            return true
        }

        static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: [UInt8]) -> Bool {
            guard range.count == word.count else { return false }
            for k in 0..<range.count where bytes[range.lowerBound + k] != word[k] { return false }
            return true
        }

        static func equal(_ a: UnsafeBufferPointer<UInt8>, _ x: Range<Int>, _ b: UnsafeBufferPointer<UInt8>, _ y: Range<Int>) -> Bool {
            guard x.count == y.count else { return false }
            for k in 0..<x.count where a[x.lowerBound + k] != b[y.lowerBound + k] { return false }
            return true
        }

        mutating func skipSpace() { while i < bytes.count, Scanner.isSpace(bytes[i]) { i += 1 } }

        /// The object starting here: `member(key range, key has an escape, value range)` for each
        /// member (false stops the scan); returns the index of its closing brace.
        mutating func object(_ member: (Range<Int>, Bool, Range<Int>) -> Bool) -> Int? {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return i - 1
            }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
                let keyStart = i + 1
                guard let (keyEnd, escaped) = skipString() else { return nil }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                skipSpace()
                let valueStart = i
                guard skipValue(), member(keyStart..<keyEnd, escaped, valueStart..<i) else { return nil }
                skipSpace()
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                guard bytes[i] == UInt8(ascii: "}") else { return nil }
                i += 1
                return i - 1
            }
        }

        /// At an opening quote: moves past the closing one; returns the closing quote's index
        /// and whether the string holds an escape.
        mutating func skipString() -> (Int, Bool)? {
            i += 1
            var escaped = false
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    i += 1
                    return (i - 1, escaped)
                case UInt8(ascii: "\\"):
                    escaped = true
                    i += 2
                case 0..<0x20:
                    return nil
                default:
                    i += 1
                }
            }
            return nil
        }

        /// Moves past one value (string, number, literal, or a nested object / array).
        mutating func skipValue() -> Bool {
            guard i < bytes.count else { return false }
            switch bytes[i] {
            case UInt8(ascii: "\""):
                return skipString() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while i < bytes.count {
                    switch bytes[i] {
                    case UInt8(ascii: "\""):
                        guard skipString() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            return true
                        }
                    default:
                        break
                    }
                    i += 1
                }
                return false
            default:
                let start = i
                while i < bytes.count {
                    let b = bytes[i]
                    if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || Scanner.isSpace(b) { break }
                    guard b > 0x20, b != UInt8(ascii: "\""), b != UInt8(ascii: "{"), b != UInt8(ascii: "["), b < 0x7F else { return false }
                    i += 1
                }
                return i > start
            }
        }
    }
}
