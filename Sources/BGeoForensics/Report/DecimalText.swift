/// Fixed-point decimal text without exponents, fast enough for a million points.
/// `"\(0.00001)"` prints `1e-05`, which xsd:decimal (GPX lat/lon) and SVG path data parsers
/// handled differently; this never does. Trailing zeros are trimmed (`52.2297`, `8`, `-0.5`).
public enum DecimalText {
    /// `value` rounded to `places` (0…9) decimals; non-finite values print as "0".
    public static func format(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        let places = min(max(places, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        // Beyond 9e17/scale the scaled value overflows Int64; such magnitudes are never coordinates.
        let limit = 9e17 / Double(scale)
        guard abs(value) < limit else { return value > 0 ? "\(Int64(limit))" : "-\(Int64(limit))" }
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
        return String(unsafeUninitializedCapacity: length) { buffer in
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
}
