import Testing
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
}
