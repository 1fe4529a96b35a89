import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 25, item 3: the SDK's refresh flow is "rotate tokens, retry the original request"; a
/// backoff belongs to the refresh-failure branch. A refresh that succeeded and was followed by a
/// backoff instead of the retry is an engine deviation (`policy.violation`, rule
/// `refresh-not-retried`) citing the refresh result and the backoff rows.
@Suite struct RefreshRetryTests {
    static let directory = TestDirectory("refresh-retry")

    /// A 401, a refresh that succeeds, then either the retry (documented) or a backoff (not).
    static func dump(retries: Bool) throws -> (path: String, rows: [String: Int64]) {
        let path = directory.file(retries ? "retried.db" : "not-retried.db")
        var rows: [String: Int64] = [:]
        let f = try TimelineFixture(path: path)
        try f.log("session.start", ["reason": "launch"])
        try f.config(TimelineFixture.authorizedConfig)
        var batch: [String] = []
        for _ in 0..<3 { batch.append(try f.fix(queued: !retries)) }
        try f.request(batch)
        rows["401"] = try f.response(401, count: batch.count, body: "{\"error\":\"token expired\"}")
        try f.log("auth.refresh", ["url": "https://ingest.example/auth/refresh"])
        rows["refreshed"] = try f.log("auth.refresh.result", ["success": true, "status": 200])
        if retries {
            try f.request(batch)
            try f.response(200, count: batch.count)
        } else {
            rows["backoff"] = try f.backoff(failures: 1, delay: 5)
            f.clock += 5
            try f.request(batch)
            try f.response(200, count: batch.count)
        }
        try f.close()
        return (path, rows)
    }

    @Test func aBackoffAfterASuccessfulRefreshIsAnEngineViolationWithItsRows() throws {
        let built = try Self.dump(retries: false)
        let timeline = try Scenarios.timeline(built.path)
        let violation = try #require(timeline.findings(code: "policy.violation")
            .first { $0.rule == PolicyRule.refreshNotRetried.rawValue }, "\(timeline.findings.map(\.summary))")
        #expect(violation.responsible == .engine)
        #expect(violation.severity == .warning)
        #expect(violation.allLogIds == [try #require(built.rows["refreshed"]), try #require(built.rows["backoff"])])
        #expect(violation.summary.contains("instead of retrying the request with the new token"), "\(violation.summary)")
        // Not also a skipped refresh: the refresh happened.
        #expect(timeline.findings(code: "policy.violation").allSatisfy { $0.rule != PolicyRule.refreshSkipped.rawValue })
    }

    @Test func theDocumentedRetryIsNotAViolation() throws {
        let timeline = try Scenarios.timeline(try Self.dump(retries: true).path)
        #expect(timeline.findings(code: "policy.violation").isEmpty, "\(timeline.findings.map(\.summary))")
    }

    /// A failed refresh followed by a backoff is the documented failure branch.
    @Test func aBackoffAfterAFailedRefreshIsNotThisViolation() throws {
        let timeline = try Scenarios.timeline(Scenarios.stranded.path)
        #expect(timeline.findings(code: "policy.violation").allSatisfy { $0.rule != PolicyRule.refreshNotRetried.rawValue })
    }
}
