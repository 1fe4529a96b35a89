import Testing
@testable import BGeoForensics

/// A rule the engine breaks at every row (the backoff schedule, on a stranded dump) is counted
/// every time, but its evidence — a sentence, rows, uuids — is made only while its list keeps
/// evidence (the first 20): time per upload attempt must not carry a sentence nobody sees.
@Suite struct PolicyViolationEvidenceTests {
    @Test func evidenceIsMadeOnlyWhileTheListKeepsIt() {
        var violations = UploadTracker.Violations()
        var made = (notes: 0, rows: 0, uuids: 0)
        for row in Int64(1)...500 {
            violations.add(.backoffSchedule, { made.notes += 1; return "broken at row \(row)" }(),
                           logIds: { made.rows += 1; return [row] }(), uuids: { made.uuids += 1; return ["u\(row)"] }())
        }
        violations.add(.refreshSkipped, "once", logIds: [7])
        let list = violations.lists[.backoffSchedule]
        #expect(list?.total == 500 && list?.items.count == 20 && list?.omitted == 480)
        #expect(made.notes == 20 && made.rows == 20 && made.uuids == 20, "\(made)")
        #expect(list?.items.first?.note == "broken at row 1" && list?.items.last?.note == "broken at row 20")
        #expect(list?.items.first?.logIds == [1] && list?.items.first?.uuids == ["u1"])
        #expect(violations.lists[.refreshSkipped]?.total == 1 && violations.lists[.refreshSkipped]?.items.first?.note == "once")
    }
}
