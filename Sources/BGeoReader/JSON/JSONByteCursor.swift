import Foundation

/// Byte cursor with the JSON grammar's building blocks (the package's byte-level readers share it).
package struct JSONByteCursor {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    package init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    package var peek: UInt8 { index < bytes.count ? bytes[index] : 0 }

    /// Dumps rarely put whitespace between tokens: the common case is one test, inlined.
    @inline(__always)
    package mutating func skipWhitespace() {
        guard index < bytes.count, bytes[index] <= 0x20 else { return }
        skipWhitespaceRun()
    }

    @inline(never)
    package mutating func skipWhitespaceRun() {
        while index < bytes.count {
            let b = bytes[index]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            index += 1
        }
    }

    /// A member name followed by ':'; returns its raw byte range (inside the quotes, escapes as written).
    package mutating func scanKey() -> Range<Int>? {
        var escaped = false
        return scanKey(sawEscape: &escaped)
    }

    /// `scanKey`, telling whether the key holds an escape (its bytes are then not its name).
    @inline(__always)
    mutating func scanKey(sawEscape: inout Bool) -> Range<Int>? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        guard skipString(sawEscape: &sawEscape) else { return nil }
        let end = index - 1
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { return nil }
        index += 1
        return start..<end
    }

    /// Skips a string starting at the quote, validating escapes and control characters.
    package mutating func skipString() -> Bool {
        var escaped = false
        return skipString(sawEscape: &escaped)
    }

    /// `skipString`, telling whether the string holds an escape.
    @inline(__always)
    mutating func skipString(sawEscape: inout Bool) -> Bool {
        index += 1
        let count = bytes.count
        guard let base = bytes.baseAddress else { return false }
        while true {
            // Eight bytes at a time while none of them needs a look (most of every string), then
            // straight to the first one that does.
            while index + 8 <= count {
                let look = JSONByteCursor.lookMask(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                guard look == 0 else {
                    index += look.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < count else { return false }
            let b = base[index]
            if b == UInt8(ascii: "\"") { index += 1; return true }
            if b < 0x20 { return false }
            if b == UInt8(ascii: "\\") {
                sawEscape = true
                index += 1
                guard index < count else { return false }
                switch base[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    guard index + 4 < count else { return false }
                    for k in 1...4 where !isHex(base[index + k]) { return false }
                    index += 5
                default:
                    return false
                }
                continue
            }
            index += 1
        }
    }

    /// The high bit of each byte of `word` (loaded little-endian) that may be a quote, a backslash
    /// or a control character (below 0x20); zero when none is. The lowest bit set is exact: a
    /// borrow that flags a byte that is none of them comes from a lower byte that is flagged too,
    /// so `trailingZeroBitCount / 8` is the first byte that needs a look.
    @inline(__always)
    static func lookMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highs
    }

    private func isHex(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
    }

    /// Whether the next byte is an ASCII digit (false at the end).
    @inline(__always)
    var peekIsDigit: Bool { index < bytes.count && bytes[index] &- 48 < 10 }

    @inline(__always)
    mutating func skipDigits() {
        while index < bytes.count, bytes[index] &- 48 < 10 { index += 1 }
    }

    /// Skips a number; false where the strict parser (`JSONParser`) refuses it, its grammar or a
    /// value too large for a Double ("number out of range": only an exponent or more than 308
    /// integer digits can make one, so only those are converted to check).
    mutating func skipNumber() -> Bool {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard peekIsDigit else { return false }
        let integerStart = index
        if peek == 48 { index += 1 } else { skipDigits() }
        let integerDigits = index - integerStart
        if peek == UInt8(ascii: ".") {
            index += 1
            guard peekIsDigit else { return false }
            skipDigits()
        }
        var hasExponent = false
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            hasExponent = true
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard peekIsDigit else { return false }
            skipDigits()
        }
        guard hasExponent || integerDigits > 308 else { return true }
        return JSONByteCursor.parseDouble(UnsafeBufferPointer(rebasing: bytes[start..<index])).isFinite
    }

    package mutating func skipLiteral(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard index + n <= bytes.count else { return false }
        for k in 0..<n where bytes[index + k] != literal.utf8Start[k] { return false }
        index += n
        return true
    }

    package mutating func skipValue(depth: Int) -> Bool {
        guard depth < 512 else { return false }
        switch peek {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") { index += 1; return true }
            while true {
                skipWhitespace()
                guard scanKey() != nil else { return false }
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                if peek == UInt8(ascii: "}") { index += 1; return true }
                return false
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") { index += 1; return true }
            while true {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                if peek == UInt8(ascii: "]") { index += 1; return true }
                return false
            }
        case UInt8(ascii: "t"): return skipLiteral("true")
        case UInt8(ascii: "f"): return skipLiteral("false")
        case UInt8(ascii: "n"): return skipLiteral("null")
        default: return skipNumber()
        }
    }

    /// Scans a value into `field`: scalars decoded, strings as ranges (an escaped one checked
    /// to decode, as the strict parser would).
    mutating func scanCapturedValue(into field: inout FieldScanner.Field) -> Bool {
        let start = index
        switch peek {
        case UInt8(ascii: "\""):
            var escaped = false
            guard skipString(sawEscape: &escaped) else { return false }
            field.start = start + 1
            field.end = index - 1
            if escaped {
                guard FieldScanner.Field.decodeEscaped(UnsafeBufferPointer(rebasing: bytes[start..<index])) != nil else { return false }
                field.kind = .escapedString
            } else {
                field.kind = .string
            }
            return true
        case UInt8(ascii: "t"):
            field.kind = .bool
            field.flag = true
            return skipLiteral("true")
        case UInt8(ascii: "f"):
            field.kind = .bool
            field.flag = false
            return skipLiteral("false")
        case UInt8(ascii: "n"):
            field.kind = .null
            return skipLiteral("null")
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            field.kind = .composite
            field.start = start
            guard skipValue(depth: 2) else { return false }
            field.end = index
            return true
        default:
            guard let number = scanNumber() else { return false }
            field.kind = .number
            field.number = number
            // The literal as written: an integer reading needs its digits, not only the double.
            field.start = start
            field.end = index
            return true
        }
    }

    /// Skips a number as `skipNumber` does and returns its value: a plain decimal of up to 15
    /// digits is accumulated on the way (exact), anything else goes to `parseDouble`.
    package mutating func scanNumber() -> Double? {
        let start = index
        let negative = peek == UInt8(ascii: "-")
        if negative { index += 1 }
        guard peekIsDigit else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        if peek == 48 {
            index += 1
            digits = 1
        } else {
            while index < bytes.count {
                let d = bytes[index] &- 48
                guard d < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
                index += 1
            }
        }
        var fractionDigits = 0
        if peek == UInt8(ascii: ".") {
            index += 1
            guard peekIsDigit else { return nil }
            while index < bytes.count {
                let d = bytes[index] &- 48
                guard d < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
                fractionDigits += 1
                index += 1
            }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard peekIsDigit else { return nil }
            skipDigits()
            return JSONByteCursor.finiteDouble(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        }
        guard digits <= 15 else { return JSONByteCursor.finiteDouble(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
        // Exact: mantissa and 10^k are both exactly representable, one correctly rounded division.
        let value = Double(mantissa) / JSONByteCursor.powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// `parseDouble`, nil for a number too large for a Double, which the strict parser refuses.
    static func finiteDouble(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        let value = parseDouble(b)
        return value.isFinite ? value : nil
    }

    /// A number `scanNumber` does not convert by hand (an exponent, or more than 15 digits):
    /// strtod on a terminated copy. The grammar has been checked.
    static func parseDouble(_ b: UnsafeBufferPointer<UInt8>) -> Double {
        var buffer = [CChar](repeating: 0, count: b.count + 1)
        for k in 0..<b.count { buffer[k] = CChar(bitPattern: b[k]) }
        return strtod(buffer, nil)
    }

    static let powersOfTen: [Double] = (0...22).map { k in
        var v = 1.0
        for _ in 0..<k { v *= 10 }
        return v
    }
}
