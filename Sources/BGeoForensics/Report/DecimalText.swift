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
        let whole = scaled / scale
        var fraction = scaled % scale
        var text = negative ? "-" : ""
        text += String(whole)
        guard places > 0, fraction != 0 else { return text }
        var digits = places
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let fractionText = String(fraction)
        text += "."
        if fractionText.count < digits { text += String(repeating: "0", count: digits - fractionText.count) }
        text += fractionText
        return text
    }
}
