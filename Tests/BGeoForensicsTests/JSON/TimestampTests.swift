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
}
