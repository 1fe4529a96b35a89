import BGeoReader
import Foundation

/// The plain-text fast path: what needs no escaping, and coordinates written as the XML writer would.
extension GPXWriter {
    /// True for nil or text that every XML writer leaves as is: printable ASCII without `&`, `<`,
    /// `>`, `"` or `'`.
    static func isPlain(_ text: String?) -> Bool {
        guard var text else { return true }
        return text.withUTF8 { bytes in
            // Eight bytes at a time (a uuid: four words and four bytes), the rest one by one.
            let words = bytes.count / 8
            if words > 0, let base = UnsafeRawPointer(bytes.baseAddress) {
                for i in 0..<words where !isPlain(word: base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) {
                    return false
                }
            }
            return bytes[(words * 8)...].allSatisfy {
                $0 >= 0x20 && $0 < 0x7F && $0 != 0x26 && $0 != 0x3C && $0 != 0x3E && $0 != 0x22 && $0 != 0x27
            }
        }
    }

    /// `isPlain` for eight bytes: none below 0x20 or above 0x7E, none of `&<>"'`.
    @inline(__always) private static func isPlain(word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // Nonzero exactly when some byte of `v` is zero / is below `n` (n ≤ 0x80).
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        func hasBelow(_ n: UInt64) -> Bool { (word &- ones &* n) & ~word & highs != 0 }
        if word & highs != 0 || hasBelow(0x20) { return false }
        return !(hasZero(word ^ (ones &* 0x7F)) || hasZero(word ^ (ones &* 0x26)) || hasZero(word ^ (ones &* 0x3C))
            || hasZero(word ^ (ones &* 0x3E)) || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x27)))
    }

    /// `latitude(value)`'s bytes, appended.
    static func appendLatitude(_ value: Double, to bytes: inout [UInt8]) {
        DecimalText.append(min(max(value, -90), 90), places: 7, to: &bytes)
    }

    /// `longitude(value)`'s bytes, appended (the rare text "180" goes through `longitude`).
    static func appendLongitude(_ value: Double, to bytes: inout [UInt8]) {
        let lon = min(max(value, -180), 180)
        guard lon < 179.9999999 else {
            bytes.append(contentsOf: longitude(value).utf8)
            return
        }
        DecimalText.append(lon, places: 7, to: &bytes)
    }

    /// xsd latitudeType: −90…90, decimal, 7 places (≈1 cm).
    static func latitude(_ value: Double) -> String { DecimalText.format(min(max(value, -90), 90), places: 7) }

    /// xsd longitudeType: −180 ≤ lon < 180, so +180 is written as −180 (the same meridian).
    static func longitude(_ value: Double) -> String {
        var lon = min(max(value, -180), 180)
        if lon >= 180 { lon = -180 }
        let text = DecimalText.format(lon, places: 7)
        return text == "180" ? "-180" : text
    }
}
