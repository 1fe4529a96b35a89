import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 25, item 4: when the log was pruned (logMaxDays, the 25,000-row cap) it can start long
/// after the oldest stranded record, with the engine's failure counter far above the failures
/// the log shows. The findings must say the history is incomplete, by how much, and word the
/// onset "at least since"; `--json` carries `historyComplete` and the span per finding.
@Suite struct HistoryCoverageTests {
    static let directory = TestDirectory("history")

    /// 12 queued records from 12 h before the log's first surviving row; the log's first 40
    /// rows deleted; 10 failing 401 → failed-refresh rounds logged; the engine counts 156.
    static let pruned: String = {
        let path = directory.file("pruned.db")
        do {
            let f = try TimelineFixture(path: path)
            try f.writer.setState("auth", ["accessToken": .string(TimelineFixture.expiredJWT), "refreshToken": "refresh-token-abcdef"])
            try f.writer.setState("http.failures", 156)
            var pending: [String] = []
            for _ in 0..<12 { pending.append(try f.fix(queued: true, logged: false)) }
            // The rows the prune removed: written, then deleted below.
            for _ in 0..<40 { try f.log("heartbeat", level: 4, after: 1080) }
            try f.log("session.start", ["reason": "launch"])
            try f.config(TimelineFixture.authorizedConfig)
            for n in 1...10 {
                try f.request(pending)
                try f.response(401, count: pending.count, body: "{\"error\":\"token expired\"}")
                try f.log("auth.refresh", ["url": "https://ingest.example/auth/refresh"])
                try f.log("auth.refresh.result", level: 1, ["success": false, "status": 400])
                try f.backoff(failures: min(n, 8), delay: BackoffSchedule.bgeo.delay(afterFailures: min(n, 8)))
                f.clock += BackoffSchedule.bgeo.delay(afterFailures: min(n, 8))
            }
            try f.writer.database.execute("DELETE FROM log_entries WHERE id <= 40")
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return path
    }()

    @Test func aPrunedLogSaysTheHistoryIsIncompleteAndByHowMuch() throws {
        let timeline = try Scenarios.timeline(Self.pruned)
        #expect(!timeline.history.isComplete)
        let sentence = try #require(timeline.history.sentence)
        #expect(sentence.contains("the log starts at"), "\(sentence)")
        #expect(sentence.contains("after the oldest pending record"), "\(sentence)")
        #expect(sentence.contains("first surviving row is #41, so 40 earlier rows were deleted"), "\(sentence)")
        #expect(sentence.contains("the engine counted 156 consecutive failed uploads"), "\(sentence)")
        #expect(sentence.contains("146 more than the 10 the log shows"), "\(sentence)")

        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.summary.contains("every upload at least since"), "\(stranded.summary)")
        #expect(stranded.summary.contains("The history is incomplete"), "\(stranded.summary)")
        #expect(!stranded.historyComplete)
        let refresh = try #require(timeline.findings(code: "auth.refresh_failing").first)
        #expect(refresh.summary.contains("in a row at least since"), "\(refresh.summary)")
        #expect(!refresh.historyComplete)

        let json = timeline.json()
        #expect(json["history"]?["complete"] == .bool(false))
        let first = try #require(json["findings"]?.arrayValue?.first)
        #expect(first["historyComplete"] == .bool(false))
        #expect(first["span"]?["from"]?.stringValue != nil, "\(first)")
    }

    /// The stranded-refresh sample's log holds its whole history: the onset is plain "since".
    @Test func aWholeLogIsComplete() throws {
        let dump = try Dump(path: FindingRuleTests.samples + "/stranded-refresh.db")
        let timeline = TimelineBuilder(dump: dump).build()
        #expect(timeline.history.isComplete && timeline.history.sentence == nil)
        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.summary.contains("every upload since") && stranded.historyComplete)
    }

    /// A --since window after the log's start: the onset is only "at least since".
    @Test func aWindowThatCutsTheLogIsIncomplete() throws {
        let dump = try Dump(path: FindingRuleTests.samples + "/stranded-refresh.db")
        let since = try #require(Timestamp.parse("2026-07-24T16:00:00Z"))
        let timeline = TimelineBuilder(dump: dump, options: TimelineOptions(since: since)).build()
        #expect(timeline.history.sentence?.contains("the window starts at 2026-07-24T16:00:00Z") == true)
        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.summary.contains("at least since"), "\(stranded.summary)")
        // A window that starts before the log cuts nothing.
        let early = try #require(Timestamp.parse("2026-07-01T00:00:00Z"))
        #expect(TimelineBuilder(dump: try Dump(path: FindingRuleTests.samples + "/stranded-refresh.db"),
                                options: TimelineOptions(since: early)).build().history.isComplete)
    }
}
