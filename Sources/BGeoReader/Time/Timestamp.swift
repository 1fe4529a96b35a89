/// ISO-8601 timestamps as the SDK writes them, parsed without Foundation formatters (which are
/// far too slow for million-row scans): `2026-07-24T09:14:32.118Z`, without milliseconds, with
/// any number of fraction digits, with `Z` or a `±HH:MM` / `±HHMM` offset, `T` or a space.
public enum Timestamp {
    /// Seconds since the Unix epoch (UTC), or nil when the text is not an ISO-8601 timestamp.
    public static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse(bytes: $0) }
    }

    public static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Double? {
        read(b)?.seconds
    }

    /// The UTC offset in seconds the text is written with (`+02:00`, `+0200`, `+02` → 7200), nil
    /// for `Z` or a text `parse` does not take: one reading of the zone for both.
    public static func offsetSeconds(_ text: String) -> Int? {
        var copy = text
        return copy.withUTF8 { read($0)?.offset }
    }

    /// A timestamp's time and its written UTC offset (nil for `Z`), or nil when it is not one.
    @inline(__always)
    private static func read(_ b: UnsafeBufferPointer<UInt8>) -> (seconds: Double, offset: Int?)? {
        let n = b.count
        guard n >= 19, let p = b.baseAddress else { return nil }
        // Every row of a log has a time to parse: the fixed head's fourteen digits are checked at
        // once (each byte minus "0" below ten) rather than one by one through an optional.
        @inline(__always) func digit(_ i: Int) -> Int { Int(p[i] &- 48) }
        let y0 = digit(0), y1 = digit(1), y2 = digit(2), y3 = digit(3), mo0 = digit(5), mo1 = digit(6)
        let d0 = digit(8), d1 = digit(9), h0 = digit(11), h1 = digit(12), mi0 = digit(14), mi1 = digit(15)
        let s0 = digit(17), s1 = digit(18)
        let largest = max(max(max(y0, y1), max(y2, y3)), max(max(mo0, mo1), max(d0, d1)),
                          max(max(h0, h1), max(mi0, mi1)), max(s0, s1))
        guard largest <= 9, p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"),
              p[10] == UInt8(ascii: "T") || p[10] == UInt8(ascii: " ") || p[10] == UInt8(ascii: "t"),
              p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":") else { return nil }
        let year = ((y0 * 10 + y1) * 10 + y2) * 10 + y3
        let month = mo0 * 10 + mo1, day = d0 * 10 + d1
        let hour = h0 * 10 + h1, minute = mi0 * 10 + mi1, second = s0 * 10 + s1
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < n, p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: ",") {
            i += 1
            let start = i
            // Each digit's weight is the one before divided by ten; the first five are those
            // quotients exactly (0.1 / 10 is the double 0.01, … down to 1e-5), so no division is
            // made for a millisecond time, and a time parses to the same bits as by dividing.
            var scale = 0.1
            while i < n, p[i] >= 48, p[i] <= 57 {
                switch i - start {
                case 0: scale = 0.1
                case 1: scale = 0.01
                case 2: scale = 0.001
                case 3: scale = 0.0001
                case 4: scale = 0.00001
                default: scale /= 10
                }
                fraction += Double(p[i] - 48) * scale
                i += 1
            }
            guard i > start else { return nil }
        }
        var offsetSeconds: Int?
        guard i < n else { return nil }  // a zone is required: a bare local time is ambiguous
        switch p[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = p[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard i + 2 <= n, let oh = twoDigits(p, at: i) else { return nil }
            i += 2
            var om = 0
            if i < n, p[i] == UInt8(ascii: ":") { i += 1 }
            if i + 2 <= n, let m = twoDigits(p, at: i) { om = m; i += 2 }
            guard oh <= 23, om <= 59 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == n else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - (offsetSeconds ?? 0)
        return (Double(seconds) + fraction, offsetSeconds)
    }

    /// The two decimal digits at `i`, or nil.
    @inline(__always)
    private static func twoDigits(_ p: UnsafePointer<UInt8>, at i: Int) -> Int? {
        let high = Int(p[i] &- 48), low = Int(p[i + 1] &- 48)
        guard high <= 9, low <= 9 else { return nil }
        return high * 10 + low
    }

    /// The seconds a four-digit-year ISO-8601 text can name: 0000-01-01T00:00:00Z …
    /// 9999-12-31T23:59:59.999Z (what `parse` accepts). A number from a dump outside this (a JWT
    /// `exp` of 1e16, NaN) is not a time.
    public static let representable: ClosedRange<Double> = -62_167_219_200 ... 253_402_300_799.999

    /// True when `seconds` names a time `format` can write.
    public static func isTime(_ seconds: Double) -> Bool { representable.contains(seconds) }

    /// `2026-07-24T09:14:32.118Z` (UTC, milliseconds; without them `2026-07-24T09:14:32Z`).
    /// Built in one fixed-size buffer: a GPX export or a trace writes one per point, and string
    /// concatenation would dominate a million-point run. A number that is not a time (see
    /// `isTime`) is written as itself with "(not a time)": callers check dump values first and
    /// warn, this only guarantees no trap.
    public static func format(_ seconds: Double, milliseconds: Bool = true) -> String {
        guard isTime(seconds) else { return NumberText.describe(seconds) + " (not a time)" }
        let totalMillis = Int64((seconds * 1000).rounded(.down))
        var days = totalMillis / 86_400_000
        var millisOfDay = totalMillis % 86_400_000
        if millisOfDay < 0 { millisOfDay += 86_400_000; days -= 1 }
        let (y, m, d) = civilFromDays(Int(days))
        let h = Int(millisOfDay / 3_600_000)
        let mi = Int(millisOfDay / 60_000 % 60)
        let s = Int(millisOfDay / 1000 % 60)
        let ms = Int(millisOfDay % 1000)
        guard (0...9999).contains(y) else {
            var out = String(y) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2)
            if milliseconds { out += "." + pad(ms, 3) }
            return out + "Z"
        }
        let length = milliseconds ? 24 : 20
        return String(unsafeUninitializedCapacity: length) { buffer in
            func put(_ value: Int, _ width: Int, at index: Int) {
                var v = value
                for i in stride(from: index + width - 1, through: index, by: -1) {
                    buffer[i] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(y, 4, at: 0); buffer[4] = UInt8(ascii: "-")
            put(m, 2, at: 5); buffer[7] = UInt8(ascii: "-")
            put(d, 2, at: 8); buffer[10] = UInt8(ascii: "T")
            put(h, 2, at: 11); buffer[13] = UInt8(ascii: ":")
            put(mi, 2, at: 14); buffer[16] = UInt8(ascii: ":")
            put(s, 2, at: 17)
            if milliseconds {
                buffer[19] = UInt8(ascii: ".")
                put(ms, 3, at: 20)
            }
            buffer[length - 1] = UInt8(ascii: "Z")
            return length
        }
    }

    /// Appends `format(seconds)`'s bytes (with milliseconds) to `bytes`: the same text, without a
    /// String per point for the million-point writers.
    public static func append(_ seconds: Double, to bytes: inout [UInt8]) {
        guard isTime(seconds) else {
            bytes.append(contentsOf: format(seconds).utf8)
            return
        }
        let totalMillis = Int64((seconds * 1000).rounded(.down))
        var days = totalMillis / 86_400_000
        var millisOfDay = totalMillis % 86_400_000
        if millisOfDay < 0 { millisOfDay += 86_400_000; days -= 1 }
        let (y, m, d) = civilFromDays(Int(days))
        guard (0...9999).contains(y) else {
            bytes.append(contentsOf: format(seconds).utf8)
            return
        }
        func put(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var v = value
            while divisor > 0 {
                bytes.append(UInt8(48 + v / divisor))
                v %= divisor
                divisor /= 10
            }
        }
        put(y, 4); bytes.append(UInt8(ascii: "-"))
        put(m, 2); bytes.append(UInt8(ascii: "-"))
        put(d, 2); bytes.append(UInt8(ascii: "T"))
        put(Int(millisOfDay / 3_600_000), 2); bytes.append(UInt8(ascii: ":"))
        put(Int(millisOfDay / 60_000 % 60), 2); bytes.append(UInt8(ascii: ":"))
        put(Int(millisOfDay / 1000 % 60), 2); bytes.append(UInt8(ascii: "."))
        put(Int(millisOfDay % 1000), 3); bytes.append(UInt8(ascii: "Z"))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return isLeap(y) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Howard Hinnant's days_from_civil.
    @inline(__always)
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// Durations written by people: `90`, `90s`, `15m`, `2h`, `1d`, `1h30m`.
public enum DurationText {
    public static func parse(_ text: String) -> Double? {
        if let plain = Double(text) { return plain >= 0 ? plain : nil }
        var total = 0.0
        var number = ""
        for ch in text {
            if ch.isNumber || ch == "." { number.append(ch); continue }
            guard let value = Double(number) else { return nil }
            switch ch {
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            case "d": total += value * 86_400
            default: return nil
            }
            number = ""
        }
        return number.isEmpty ? total : nil
    }
}
