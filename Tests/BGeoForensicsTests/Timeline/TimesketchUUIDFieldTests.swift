import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The Timesketch `uuid` field stays under OpenSearch's 32,766-byte keyword limit: whole uuids,
/// in order, every one counted, the rest named in the message.
@Suite struct TimesketchUUIDFieldTests {
    static func uuid(_ i: Int) -> String {
        let hex = String(i, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    @Test func keepsWholeUuidsUpToTheLimitAndCountsThemAll() {
        let field = TimesketchUUIDField((0..<2_000).map(Self.uuid))
        // 36 bytes, then 37 with the space: 864 fit in 32,000 bytes (31,967), the 865th would not.
        #expect(field.count == 2_000 && field.listed == 864)
        #expect(field.text.utf8.count == 31_967 && field.text.utf8.count <= TimesketchUUIDField.maxBytes)
        #expect(field.text.split(separator: " ").map(String.init) == (0..<864).map(Self.uuid))
        #expect(field.note == " (2000 uuids; the uuid field lists the first 864)")
    }

    @Test func aFewUuidsAreListedWholeWithoutANote() {
        let field = TimesketchUUIDField(["a", "b", ""])
        #expect(field.text == "a b " && field.listed == 3 && field.count == 3 && field.note.isEmpty)
        #expect(TimesketchUUIDField([]).listed == 0 && TimesketchUUIDField([]).text.isEmpty)
    }

    /// A uuid that does not fit ends the list: a shorter one after it is counted, not listed, so
    /// the field is always the first uuids in order.
    @Test func theListIsAPrefix() {
        var field = TimesketchUUIDField()
        field.add(String(repeating: "x", count: TimesketchUUIDField.maxBytes))
        field.add("y")
        #expect(field.listed == 1 && field.count == 2 && !field.text.contains("y"))
        var huge = TimesketchUUIDField()
        huge.add(String(repeating: "é", count: TimesketchUUIDField.maxBytes))
        huge.add("z")
        #expect(huge.listed == 0 && huge.count == 2 && huge.text.isEmpty)
        #expect(huge.note == " (2 uuids; the uuid field lists the first 0)")
    }
}
