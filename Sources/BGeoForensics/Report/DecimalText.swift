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

/// `Timestamp.format` (UTC, milliseconds) built in one 24-byte buffer: a GPX file writes one per
/// point, and the general formatter's string concatenations dominate a million-point export.
enum FastTimestamp {
    static func format(_ seconds: Double) -> String {
        let totalMillis = Int64((seconds * 1000).rounded(.down))
        var days = totalMillis / 86_400_000
        var millisOfDay = totalMillis % 86_400_000
        if millisOfDay < 0 { millisOfDay += 86_400_000; days -= 1 }
        let (y, m, d) = Timestamp.civilFromDays(Int(days))
        guard (0...9999).contains(y) else { return Timestamp.format(seconds) }
        let h = Int(millisOfDay / 3_600_000), mi = Int(millisOfDay / 60_000 % 60)
        let s = Int(millisOfDay / 1000 % 60), ms = Int(millisOfDay % 1000)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, _ width: Int, at index: Int) {
                var v = value
                for i in stride(from: index + width - 1, through: index, by: -1) {
                    buffer[i] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(y, 4, at: 0); buffer[4] = 45
            put(m, 2, at: 5); buffer[7] = 45
            put(d, 2, at: 8); buffer[10] = 84
            put(h, 2, at: 11); buffer[13] = 58
            put(mi, 2, at: 14); buffer[16] = 58
            put(s, 2, at: 17); buffer[19] = 46
            put(ms, 3, at: 20); buffer[23] = 90
            return 24
        }
    }
}
