import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct TimestampTests {
    @Test func parsesTheSDKForms() throws {
        let base = try #require(Timestamp.parse("2026-07-24T09:14:32.118Z"))
        #expect(abs(base - 1_784_884_472.118) < 1e-6)
        #expect(Timestamp.parse("2026-07-24T09:14:32Z") == 1_784_884_472)
        #expect(Timestamp.parse("2026-07-24T11:14:32+02:00") == 1_784_884_472)
        #expect(Timestamp.parse("2026-07-24T04:14:32-0500") == 1_784_884_472)
        #expect(Timestamp.parse("2026-07-24 09:14:32Z") == 1_784_884_472)
    }

    @Test(arguments: ["2026-07-24", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "yesterday", "2026-07-24T09:14:32",
                      "2026-07-24T25:00:00Z", "2026-07-24T09:14:32.Z"])
    func rejectsOtherText(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    /// Regression (stop 47): the report's list of UTC offsets read a zone by rules of its own —
    /// only `±hh:mm` in the last six characters, unchecked — so it missed `+0530` and `+02`, which
    /// `parse` takes, and listed `+25:00` and the tail of text that is no time at all.
    @Test func offsetIsReadAsParseReadsTheZone() {
        #expect(Timestamp.offsetSeconds("2026-07-24T11:14:32+02:00") == 7200)
        #expect(Timestamp.offsetSeconds("2026-07-24T14:44:32.118+0530") == 19_800)
        #expect(Timestamp.offsetSeconds("2026-07-24T04:14:32-05") == -18_000)
        #expect(Timestamp.offsetSeconds("2026-07-24T09:14:32+00:00") == 0)
        for text in ["2026-07-24T09:14:32Z", "2026-07-24T09:14:32.5z", "2026-07-24T09:14:32+25:00",
                     "2026-07-24T09:14:32+02:61", "not a time at all, +02:00", "2026-02-30T00:00:00+01:00",
                     "2026-07-24T09:14:32"] {
            #expect(Timestamp.offsetSeconds(text) == nil, "\(text)")
        }
        // Every text with an offset: the offset is what makes `parse` differ from the same wall
        // time written in UTC.
        for text in ["2026-07-24T11:14:32+02:00", "2026-07-24T14:44:32.118+0530", "2026-07-24T04:14:32-05"] {
            let offset = Timestamp.offsetSeconds(text)!
            let wall = String(text.prefix(19)) + "Z"
            #expect(Timestamp.parse(wall)! - Timestamp.parse(text)!.rounded(.down) == Double(offset))
        }
    }

    @Test func formatsRoundTrip() {
        for t in [0.0, 1_784_884_472.118, 951_782_400.5 /* 2000-02-29 */, 4_102_444_799.999] {
            #expect(abs(Timestamp.parse(Timestamp.format(t))! - t) < 0.001)
        }
        #expect(Timestamp.format(1_784_884_472.118) == "2026-07-24T09:14:32.118Z")
    }

    @Test func durations() {
        #expect(DurationText.parse("15m") == 900)
        #expect(DurationText.parse("1h30m") == 5400)
        #expect(DurationText.parse("90") == 90)
        #expect(DurationText.parse("soon") == nil)
    }

    /// The formatter against Foundation's ISO-8601 formatter, an independent judge.
    @Test(arguments: [0.0, 1_785_000_000.118, 951_782_400.5, -86_400.25, 4_102_444_799.999, 1_785_000_000.0004, 253_402_300_799.0])
    func formatAgreesWithFoundation(seconds: Double) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let millis = (seconds * 1000).rounded(.down) / 1000
        #expect(Timestamp.format(seconds) == formatter.string(from: Date(timeIntervalSince1970: millis)))
        let plain = ISO8601DateFormatter()
        plain.timeZone = TimeZone(identifier: "UTC")
        #expect(Timestamp.format(seconds, milliseconds: false) == plain.string(from: Date(timeIntervalSince1970: millis.rounded(.down))))
    }

    /// `parse` checks the fixed head's digits at once and takes the fraction's weights from a
    /// table: against the definition it replaced (one digit at a time, a division per fraction
    /// digit), every text parses to the same bits or to nil alike — the SDK's forms, every zone,
    /// long fractions, and each of them truncated at every length and with every position
    /// replaced by each kind of byte.
    @Test func parsesAsTheDefinitionDoes() {
        var bases: [String] = []
        for head in ["2026-07-24T09:14:32", "0000-01-01T00:00:00", "9999-12-31 23:59:60", "2024-02-29t12:00:00", "2023-02-29T12:00:00",
                     "1969-12-31T23:59:59", "2026-04-31T10:10:10"] {
            for fraction in ["", ".1", ".118", ",5", ".999999", ".123456789012", ".1234567890123456789", "."] {
                for zone in ["Z", "z", "+02:00", "-0500", "+05", "-23:59", "+24:00", "", "+1", "Zx"] {
                    bases.append(head + fraction + zone)
                }
            }
        }
        let bytes: [UInt8] = [0, 0x2F, 0x30, 0x35, 0x39, 0x3A, 0x2D, 0x54, 0x5A, 0x2B, 0x2E, 0x2C, 0x20, 0x61, 0xFF]
        var texts: [[UInt8]] = []
        for base in bases {
            let utf8 = Array(base.utf8)
            texts.append(utf8)
            for length in 0..<utf8.count { texts.append(Array(utf8[..<length])) }
            for position in utf8.indices {
                for byte in bytes {
                    var changed = utf8
                    changed[position] = byte
                    texts.append(changed)
                }
            }
        }
        var disagreements = 0
        var parsed = 0
        for text in texts {
            let new = text.withUnsafeBufferPointer { Timestamp.parse(bytes: $0) }
            let old = text.withUnsafeBufferPointer { Self.definition(bytes: $0) }
            if new?.bitPattern != old?.bitPattern {
                disagreements += 1
                if disagreements <= 5 { Issue.record("\(String(decoding: text, as: UTF8.self)): \(String(describing: new)) vs \(String(describing: old))") }
            }
            if old != nil { parsed += 1 }
        }
        #expect(disagreements == 0)
        #expect(texts.count > 100_000 && parsed > 5_000, "\(texts.count) texts, \(parsed) times")
    }

    /// `Timestamp.parse(bytes:)` as it was defined before its fast head (2026-12-06).
    static func definition(bytes b: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = b.count
        guard n >= 19 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for i in start..<(start + count) {
                let d = Int(b[i]) - 48
                guard d >= 0, d <= 9 else { return nil }
                value = value * 10 + d
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == UInt8(ascii: "-"),
              let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
              let day = digits(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " ") || b[10] == UInt8(ascii: "t"),
              let hour = digits(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = digits(14, 2), b[16] == UInt8(ascii: ":"),
              let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year, month),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < n, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            var scale = 0.1
            let start = i
            while i < n, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offsetSeconds = 0
        guard i < n else { return nil }
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard i + 2 <= n, let oh = digits(i, 2) else { return nil }
            i += 2
            var om = 0
            if i < n, b[i] == UInt8(ascii: ":") { i += 1 }
            if i + 2 <= n, let m = digits(i, 2) { om = m; i += 2 }
            guard oh <= 23, om <= 59 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == n else { return nil }
        let days = Timestamp.daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Double(seconds) + fraction
    }
}
