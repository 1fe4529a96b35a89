import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 25, items 5 and 6: no summary contradicts another finding on the same dump, and advice
/// is given only where it applies, with its cause named (location lines before recovery from them,
/// the engine's default behind maxDaysToPersist = 0, the offline period behind a prune, a clock
/// that stepped back).
@Suite struct DiagnosisAdviceTests {
    static let directory = TestDirectory("advice")

    /// Three drops: two after a 429 (the policy retries it), one poison record dropped alone.
    static func drops(locationLines: Bool) throws -> String {
        let path = directory.file(locationLines ? "drops-lines.db" : "drops-nolines.db")
        let f = try TimelineFixture(path: path)
        try f.config(TimelineFixture.plainConfig)
        for status in [429, 429, 422] {
            let uuid = try f.fix(logged: locationLines)
            try f.request([uuid])
            try f.response(status, count: 1)
            try f.drop([uuid], status: status)
        }
        try f.close()
        return path
    }

    @Test func thePoisonSummaryCountsTheDropsThePolicyViolationCounts() throws {
        let timeline = try Scenarios.timeline(try Self.drops(locationLines: true))
        let poison = try #require(timeline.findings(code: "poison.dropped").first)
        let violation = try #require(timeline.findings(code: "policy.violation").first { $0.rule == PolicyRule.retryableDropped.rawValue })
        #expect(violation.summary.contains("2 times"), "\(violation.summary)")
        #expect(poison.summary.contains("2 of the 3 drops broke the upload policy"), "\(poison.summary)")
        #expect(poison.summary.contains("the other 1 followed it"))
        #expect(!poison.summary.contains("as its policy documents"), "a contradiction: \(poison.summary)")
        #expect(poison.responsible == .engine)
        #expect(poison.action.contains("survive only in the location log lines (3 in this dump)"), "\(poison.action)")
    }

    @Test func recoveryFromLocationLinesIsNotAdvisedWhereThereAreNone() throws {
        let timeline = try Scenarios.timeline(try Self.drops(locationLines: false))
        let poison = try #require(timeline.findings(code: "poison.dropped").first)
        #expect(!poison.action.contains("survive only in the location log lines"), "\(poison.action)")
        #expect(poison.action.contains("has no location log lines"), "\(poison.action)")
    }

    /// maxDaysToPersist = 0 with the device offline 58 h: records aged out by the 2-day default.
    static let offlinePrune: String = {
        let path = directory.file("offline-prune.db")
        do {
            let f = try TimelineFixture(path: path)
            try f.config(["url": "https://ingest.example/locations", "batchSync": true, "maxBatchSize": 25, "maxDaysToPersist": 0])
            for _ in 0..<5 { try f.fix(queued: true) }
            try f.log("connectivity", ["connected": false, "transport": "none"])
            f.clock += 58 * 3600
            try f.log("queue.prune", ["reason": "maxDays", "count": 3])
            try f.log("connectivity", ["connected": true, "transport": "wifi"], after: 60)
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return path
    }()

    @Test func aPruneNamesTheOfflinePeriodAndTheEnginesDefault() throws {
        let timeline = try Scenarios.timeline(Self.offlinePrune)
        let pruned = try #require(timeline.findings(code: "queue.pruned").first, "\(timeline.findings.map(\.code))")
        #expect(pruned.summary.contains("maxDaysToPersist = 0, which means the engine's default: 2 days"), "\(pruned.summary)")
        #expect(!pruned.summary.contains("the app configured"), "\(pruned.summary)")
        #expect(pruned.summary.contains("while the device was offline for 2 d 10 h"), "\(pruned.summary)")
        #expect(pruned.responsible == .device)
        #expect(pruned.evidence.contains { $0.note == "connectivity rows of the offline period" && $0.logIds.count == 2 })
    }

    /// The clock set back an hour: the log goes on from the earlier time.
    static func clock(lateRowOnly: Bool) throws -> String {
        let path = directory.file(lateRowOnly ? "late-row.db" : "clock-step.db")
        let f = try TimelineFixture(path: path)
        try f.config(TimelineFixture.plainConfig)
        for _ in 0..<5 { try f.log("heartbeat", level: 4, after: 60) }
        f.clock -= 3600
        try f.log("heartbeat", level: 4, after: 0)
        if lateRowOnly { f.clock += 3600 }
        for _ in 0..<5 { try f.log("heartbeat", level: 4, after: 60) }
        try f.close()
        return path
    }

    @Test func aClockThatSteppedBackIsNamedAndALateRowIsNot() throws {
        let stepped = try Scenarios.timeline(try Self.clock(lateRowOnly: false))
        let finding = try #require(stepped.findings(code: "clock.stepped").first, "\(stepped.findings.map(\.code))")
        #expect(finding.responsible == .device && finding.severity == .info)
        #expect(finding.summary.contains("stepped back once, by 1 h"), "\(finding.summary)")
        #expect(finding.allLogIds.count == 2)
        let late = try Scenarios.timeline(try Self.clock(lateRowOnly: true))
        #expect(late.findings(code: "clock.stepped").isEmpty, "a row written late is not a clock step")
    }

    @Test func clockStepsAreSeenAcrossTheRowsInIdOrder() {
        var steps = ClockSteps()
        for (i, t) in ([100, 200, 300, -700, -600, -500] as [Double]).enumerated() { steps.note(time: t, row: Int64(i + 1)) }
        #expect(steps.count == 1 && steps.largest?.seconds == 1000 && steps.largest?.rowBefore == 3 && steps.largest?.rowAfter == 4)
        var small = ClockSteps()
        for (i, t) in ([100, 200, 150, 160] as [Double]).enumerated() { small.note(time: t, row: Int64(i + 1)) }
        #expect(small.count == 0, "a 50 s correction is not a step")
    }

    /// Log-lane 429s beside healthy location uploads: an info finding about the log lane alone,
    /// nothing about the queue.
    @Test func logLaneThrottlingIsNotTakenForTheLocationUploads() throws {
        let path = Self.directory.file("log-lane.db")
        let f = try TimelineFixture(path: path)
        try f.config(TimelineFixture.plainConfig)
        var rows: [Int64] = []
        for round in 0..<4 {
            let batch = [try f.fix(), try f.fix()]
            try f.request(batch)
            try f.response(200, count: 2)
            let status: Int64 = round < 3 ? 429 : 200
            let row = try f.log("log.upload", level: 4, ["count": 50, "status": .int(status)])
            if round < 3 { rows.append(row) }
        }
        try f.close()
        let timeline = try Scenarios.timeline(path)
        #expect(timeline.findings.allSatisfy { $0.severity == .info }, "\(timeline.findings.map(\.summary))")
        #expect(timeline.findings(code: "queue.stranded").isEmpty && timeline.findings(code: "policy.violation").isEmpty)
        let lane = try #require(timeline.findings(code: "log.upload_failing").first)
        #expect(lane.allLogIds == rows)
        #expect(lane.summary.contains("3 log uploads (the log lane, logUrl) failed (status 429 ×3)"), "\(lane.summary)")
        #expect(lane.summary.contains("the lane recovered") && lane.summary.contains("not affected"))
    }
}
