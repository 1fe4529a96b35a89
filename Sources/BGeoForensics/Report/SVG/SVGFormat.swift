import BGeoReader

/// Small helpers shared by the map and the charts: coordinates with one decimal, time labels.
enum SVGFormat {
    /// Pixel coordinate with one decimal (a tenth of a pixel is finer than any screen).
    static func n(_ value: Double) -> String { DecimalText.format(value, places: 1) }

    /// "09:14" or "07-24 09:14" (UTC) for axis labels.
    static func clock(_ time: Double, withDate: Bool) -> String {
        let text = Timestamp.format(time, milliseconds: false)  // 2026-07-24T09:14:32Z
        let chars = Array(text)
        guard chars.count >= 16 else { return text }
        let hm = String(chars[11..<16])
        return withDate ? String(chars[5..<10]) + " " + hm : hm
    }

    /// "42 min", "3 h 05 min", "12 s".
    static func duration(_ seconds: Double) -> String {
        guard let s = Int(checked: seconds), abs(s) < 1 << 40 else { return NumberText.describe(seconds) + " s" }
        if s < 120 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        let h = s / 3600, m = (s % 3600) / 60
        if h < 48 { return "\(h) h " + (m < 10 ? "0" : "") + "\(m) min" }
        return "\(h / 24) d \(h % 24) h"
    }
}
