import BGeoReader

/// Fixed-point decimal text without exponents, fast enough for a million points.
/// `"\(0.00001)"` prints `1e-05`, which xsd:decimal (GPX lat/lon) and SVG path data parsers
/// handled differently; this never does. Trailing zeros are trimmed (`52.2297`, `8`, `-0.5`).
public enum DecimalText {
    /// `value` rounded to `places` (0…9) decimals; non-finite values print as "0".
    public static func format(_ value: Double, places: Int) -> String {
        // Through a stack buffer: String(decoding:) keeps the usual short result inline (no heap).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<write(value, places: places, into: buffer)]), as: UTF8.self)
        }
    }

    /// Appends `format(value, places:)`'s bytes to `bytes` without making a String (a
    /// million-point writer appends several numbers per point).
    public static func append(_ value: Double, places: Int, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { buffer in
            let length = write(value, places: places, into: buffer)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<length]))
        }
    }

    /// The longest text `write` makes: a sign, 18 digits, a point.
    static let maxLength = 24

    /// Writes the text into `buffer` (at least `maxLength` bytes); returns its length.
    private static func write(_ value: Double, places: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        func put(_ text: StaticString) -> Int {
            for i in 0..<text.utf8CodeUnitCount { buffer[i] = text.utf8Start[i] }
            return text.utf8CodeUnitCount
        }
        guard value.isFinite else { return put("0") }
        let places = min(max(places, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        // Beyond 9e17/scale the scaled value overflows Int64; such magnitudes are never coordinates.
        let limit = 9e17 / Double(scale)
        guard abs(value) < limit else {
            var text = value > 0 ? "\(Int64(limit))" : "-\(Int64(limit))"
            return text.withUTF8 { utf8 in
                for i in utf8.indices { buffer[i] = utf8[i] }
                return utf8.count
            }
        }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        let negative = value < 0 && scaled != 0
        var whole = scaled / scale
        var fraction = scaled % scale
        var digits = places
        while digits > 0, fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        // Written right to left into one buffer (a million points: no intermediate strings).
        var wholeDigits = 1
        var probe = whole
        while probe >= 10 { probe /= 10; wholeDigits += 1 }
        let length = (negative ? 1 : 0) + wholeDigits + (digits > 0 ? digits + 1 : 0)
        var at = length
        for _ in 0..<digits {
            at -= 1
            buffer[at] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
        if digits > 0 {
            at -= 1
            buffer[at] = UInt8(ascii: ".")
        }
        repeat {
            at -= 1
            buffer[at] = UInt8(ascii: "0") + UInt8(whole % 10)
            whole /= 10
        } while whole > 0
        if negative { buffer[0] = UInt8(ascii: "-") }
        return length
    }
}
