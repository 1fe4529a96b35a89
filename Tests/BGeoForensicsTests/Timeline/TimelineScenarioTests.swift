import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Real SQLite dumps with a known history, each built once for the suite.
enum Scenarios {
    static let directory = TestDirectory("timeline")

    /// Row ids and uuids the tests assert on.
    struct Facts: Sendable {
        var path: String
        var rows: [String: Int64] = [:]
        var uuids: [String: [String]] = [:]
    }

    static func timeline(_ path: String, _ options: TimelineOptions = TimelineOptions()) throws -> Timeline {
        let dump = try Dump(path: path)
        return TimelineBuilder(dump: dump, options: options, redactor: dump.makeRedactor()).build()
    }

    /// 12 queued records behind a token refresh that fails with 400 on every pass.
    static let stranded: Facts = {
        var facts = Facts(path: directory.file("stranded.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.writer.setState("auth", ["accessToken": .string(TimelineFixture.expiredJWT), "refreshToken": "refresh-token-abcdef"])
            try f.writer.setState("http.failures", 10)
            try f.writer.setState("http.next_attempt_at", "2026-07-25T19:00:00Z")
            try f.log("session.start", ["reason": "launch"])
            try f.config(TimelineFixture.authorizedConfig)
            var sent: [String] = []
            for _ in 0..<3 { sent.append(try f.fix()) }
            try f.request(sent)
            facts.rows["firstSuccess"] = try f.response(200, count: 3)
            var pending: [String] = []
            for _ in 0..<12 { pending.append(try f.fix(queued: true)) }
            var refreshRows: [Int64] = []
            for n in 1...10 {
                try f.request(Array(pending.prefix(25)))
                let r = try f.response(401, count: pending.count, body: "{\"error\":\"token expired\"}")
                if n == 1 { facts.rows["first401"] = r }
                try f.log("auth.refresh", ["url": "https://ingest.example/auth/refresh"])
                refreshRows.append(try f.log("auth.refresh.result", level: 1, ["success": false, "status": 400]))
                try f.backoff(failures: n, delay: BackoffSchedule.bgeo.delay(afterFailures: n))
                f.clock += BackoffSchedule.bgeo.delay(afterFailures: n)
            }
            facts.rows["firstRefreshFailure"] = refreshRows[0]
            facts.uuids["pending"] = pending
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()

    /// A batch of 5 with one poison record: split, only that uuid dropped.
    static let poison: Facts = {
        var facts = Facts(path: directory.file("poison.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.log("session.start", ["reason": "launch"])
            try f.config(TimelineFixture.plainConfig)
            var batch: [String] = []
            for _ in 0..<5 { batch.append(try f.fix()) }
            try f.request(batch)
            facts.rows["batch400"] = try f.response(400, count: 5, body: "{\"error\":\"invalid coords\"}")
            for (i, uuid) in batch.enumerated() {
                try f.request([uuid])
                if i == 2 {
                    try f.response(400, count: 1)
                    facts.rows["drop"] = try f.drop([uuid], status: 400)
                } else {
                    try f.response(201, count: 1)
                }
            }
            facts.uuids["poison"] = [batch[2]]
            facts.uuids["batch"] = batch
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()

    /// 429s retried on the schedule, then a reset after the 2xx: no violation.
    static let throttled: Facts = {
        var facts = Facts(path: directory.file("throttled.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.log("session.start", ["reason": "launch"])
            try f.config(TimelineFixture.plainConfig)
            let batch = [try f.fix(), try f.fix()]
            for n in 1...4 {
                try f.request(batch)
                try f.response(429, count: 2, body: "slow down")
                try f.backoff(failures: n, delay: BackoffSchedule.bgeo.delay(afterFailures: n))
                f.clock += BackoffSchedule.bgeo.delay(afterFailures: n)
            }
            try f.request(batch)
            try f.response(200, count: 2)
            let next = [try f.fix()]
            try f.request(next)
            try f.response(503, count: 1)
            try f.backoff(failures: 1, delay: 5)
            f.clock += 5
            try f.request(next)
            try f.response(200, count: 1)
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()

    /// Injected violations: a 429 answered by a drop, a backoff off the schedule, a 2xx that did
    /// not reset the counter, a 401 never refreshed.
    static let violations: Facts = {
        var facts = Facts(path: directory.file("violations.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.config(TimelineFixture.authorizedConfig)
            let a = [try f.fix(), try f.fix()]
            try f.request(a)
            facts.rows["429"] = try f.response(429, count: 2)
            facts.rows["drop"] = try f.drop(a, status: 429)
            facts.uuids["dropped"] = a

            let b = [try f.fix()]
            try f.request(b)
            try f.response(500, count: 1)
            try f.backoff(failures: 1, delay: 5)
            try f.request(b)
            facts.rows["500"] = try f.response(500, count: 1)
            facts.rows["skippedBackoff"] = try f.backoff(failures: 2, delay: 40)  // schedule: 10 s
            try f.request(b)
            facts.rows["2xx"] = try f.response(200, count: 1)

            let c = [try f.fix()]
            try f.request(c)
            try f.response(502, count: 1)
            facts.rows["noReset"] = try f.backoff(failures: 3, delay: 20)  // should restart at 1 (5 s)

            try f.request(c)
            facts.rows["401"] = try f.response(401, count: 1)
            facts.rows["noRefresh"] = try f.backoff(failures: 4, delay: 40)
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()

    /// Moving fixes, then 30 min of silence around a relaunch, then fixes again.
    static let relaunchGap: Facts = {
        var facts = Facts(path: directory.file("gap.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.config(TimelineFixture.plainConfig)
            for _ in 0..<30 { try f.fix(after: 10) }
            facts.rows["lastBefore"] = f.writer.database.lastInsertRowID
            f.clock += 15 * 60
            facts.rows["relaunch"] = try f.log("session.relaunch", ["reason": "killed by the OS"])
            facts.rows["headless"] = try f.log("headless.dispatch", level: 4, ["event": "location"], after: 30)
            f.clock += 14 * 60
            for _ in 0..<10 { try f.fix(after: 10, queued: true) }
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()

    /// A normal day: trips, a stationary night, threshold deferrals, one transient 503 retried on
    /// schedule, a successful token refresh, a few records just queued.
    static let healthy: Facts = {
        var facts = Facts(path: directory.file("healthy.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.writer.setState("http.failures", 0)
            try f.log("session.start", ["reason": "launch"])
            try f.config(TimelineFixture.authorizedConfig)
            try f.log("connectivity", ["connected": true, "transport": "wifi"])
            try f.log("motionchange", message: "MOVING", ["confidence": 90])
            for trip in 0..<2 {
                for batchIndex in 0..<4 {
                    var batch: [String] = []
                    for _ in 0..<5 { batch.append(try f.fix(after: 10)) }
                    try f.log("sync.deferred", ["reason": "threshold", "pending": 4])
                    try f.request(batch)
                    if trip == 0 && batchIndex == 1 {
                        try f.response(503, count: 5)
                        try f.backoff(failures: 1, delay: 5)
                        f.clock += 5
                        try f.request(batch)
                    }
                    if trip == 1 && batchIndex == 0 {
                        try f.response(401, count: 5)
                        try f.log("auth.refresh", ["url": "https://ingest.example/auth/refresh"])
                        try f.log("auth.refresh.result", ["success": true, "status": 200])
                        try f.request(batch)
                    }
                    try f.response(200, count: 5)
                    try f.log("heartbeat", level: 4)
                }
                try f.fix(after: 30, moving: false)
                try f.log("motionchange", message: "STATIONARY", ["confidence": 80])
                try f.log("motion.stationary")
                if trip == 0 {
                    f.clock += 3 * 3600
                    try f.log("wake.region.exit")
                    try f.log("motionchange", message: "MOVING", ["confidence": 85])
                }
            }
            for _ in 0..<3 { try f.fix(after: 10, queued: true) }
            try f.log("app", src: "js")
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()
}

@Suite struct TimelineScenarioTests {
    @Test func strandedQueueBehindFailingRefresh() throws {
        let facts = Scenarios.stranded
        let timeline = try Scenarios.timeline(facts.path)
        #expect(timeline.pendingRecords == 12)
        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.severity == .error)
        #expect(stranded.summary.contains("12 records"))
        #expect(stranded.summary.contains("refresh keeps failing"))
        #expect(stranded.allLogIds.contains(try #require(facts.rows["first401"])))
        #expect(stranded.evidence.contains { $0.note == "state http.failures = 10" })
        let refresh = try #require(timeline.findings(code: "auth.refresh_failing").first)
        #expect(refresh.severity == .error)
        #expect(refresh.summary.contains("10 times"))
        #expect(refresh.summary.contains("400"))
        #expect(refresh.action.contains("new tokens"))
        #expect(refresh.summary.contains("expired at 2026-07-01"))
        #expect(refresh.allLogIds.first == facts.rows["firstRefreshFailure"])
        // The failing refreshes follow the policy: no violation is reported.
        #expect(timeline.findings(code: "policy.violation").isEmpty)
        #expect(timeline.findings(code: "auth.no_refresh").isEmpty)
        // 11 attempts: one success, ten 401s each with a failed refresh and a backoff.
        #expect(timeline.attempts.count == 11)
        let last = try #require(timeline.attempts.last)
        #expect(last.status == 401 && last.outcome == .refresh)
        #expect(last.refresh?.success == false && last.refresh?.status == 400)
        #expect(last.backoffDelay == 300 && last.backoffFailures == 10)
        // Consecutive failed refreshes collapse into one event.
        let refreshEvents = timeline.events.filter { $0.kind == .refresh }
        #expect(refreshEvents.count == 1)
        #expect(refreshEvents.first?.count == 10)
        #expect(refreshEvents.first?.summary == "token refresh failed (400)")
    }

    @Test func poisonRecordInsideBatchIsSplitAndDroppedAlone() throws {
        let facts = Scenarios.poison
        let timeline = try Scenarios.timeline(facts.path)
        #expect(timeline.findings(code: "policy.violation").isEmpty)
        let poison = try #require(timeline.findings(code: "poison.dropped").first)
        #expect(poison.severity == .warning)
        #expect(poison.allUuids == facts.uuids["poison"])
        #expect(poison.allLogIds == [try #require(facts.rows["drop"])])
        #expect(poison.summary.contains("1 record was dropped"))
        #expect(timeline.attempts.count == 6)
        #expect(timeline.attempts[0].outcome == .drop && timeline.attempts[0].count == 5)
        #expect(timeline.attempts[3].dropLogId == facts.rows["drop"])
        #expect(timeline.findings.allSatisfy { $0.severity != .error })
    }

    @Test func throttlingRetriedOnScheduleIsNotAViolation() throws {
        let timeline = try Scenarios.timeline(Scenarios.throttled.path)
        #expect(timeline.findings.filter { $0.severity >= .warning }.isEmpty, "\(timeline.findings.map(\.summary))")
        #expect(timeline.attempts.filter { $0.status == 429 }.map(\.backoffDelay) == [5, 10, 20, 40])
        #expect(timeline.attempts.allSatisfy { $0.outcome != .drop })
    }

    @Test func injectedViolationsAreFoundWithTheirRows() throws {
        let facts = Scenarios.violations
        let timeline = try Scenarios.timeline(facts.path)
        let violations = timeline.findings(code: "policy.violation")
        func rule(_ r: PolicyRule) -> Finding? { violations.first { $0.rule == r.rawValue } }

        let dropped = try #require(rule(.retryableDropped))
        #expect(dropped.severity == .error)
        #expect(dropped.allLogIds == [try #require(facts.rows["429"]), try #require(facts.rows["drop"])])
        #expect(dropped.allUuids == facts.uuids["dropped"])
        #expect(dropped.summary.contains("429"))

        let schedule = try #require(rule(.backoffSchedule))
        #expect(schedule.allLogIds.contains(try #require(facts.rows["skippedBackoff"])))
        #expect(schedule.summary.contains("40 s") && schedule.summary.contains("10 s"))

        let reset = try #require(rule(.successNoReset))
        #expect(reset.allLogIds == [try #require(facts.rows["2xx"]), try #require(facts.rows["noReset"])])

        let refresh = try #require(rule(.refreshSkipped))
        #expect(refresh.allLogIds == [try #require(facts.rows["401"]), try #require(facts.rows["noRefresh"])])

        // The two records dropped together are also a poison-split question, but the drop was on
        // a retryable status: reported once, under the rule that explains it.
        #expect(rule(.poisonNotSplit) == nil)
        // Backoffs that were on schedule (failure 3 → 20 s, failure 4 → 40 s) are not reported.
        #expect(schedule.evidence.count == 1)
    }

    @Test func gapAroundRelaunchCarriesContext() throws {
        let facts = Scenarios.relaunchGap
        let timeline = try Scenarios.timeline(facts.path)
        #expect(timeline.gaps.count == 1)
        let gap = try #require(timeline.gaps.first)
        #expect(gap.seconds > 29 * 60 && gap.seconds < 31 * 60)
        #expect(gap.movingAtStart == true)
        #expect(!gap.expected)
        let relaunch = try #require(gap.contextEvents.first { $0.kind == .relaunch })
        #expect(relaunch.logId == facts.rows["relaunch"])
        #expect(relaunch.position == .inside)
        #expect(gap.contextEvents.contains { $0.kind == .headless && $0.logId == facts.rows["headless"] })
        let finding = try #require(timeline.findings(code: "tracking.gap").first)
        #expect(finding.severity == .warning)
        #expect(finding.summary.contains("relaunched"))
        #expect(finding.allLogIds.contains(try #require(facts.rows["relaunch"])))

        // A longer threshold hides it.
        let relaxed = try Scenarios.timeline(facts.path, TimelineOptions(gapThreshold: 3600))
        #expect(relaxed.gaps.isEmpty)
    }

    @Test func healthyDumpHasNoErrorOrWarning() throws {
        let timeline = try Scenarios.timeline(Scenarios.healthy.path)
        let alarms = timeline.findings.filter { $0.severity >= .warning }
        #expect(alarms.isEmpty, "\(alarms.map { "\($0.code): \($0.summary)" })")
        #expect(timeline.attempts.count == 10)
        #expect(timeline.pendingRecords == 3)
        // The stationary night is a gap, but an expected one.
        #expect(timeline.gaps.count == 1)
        #expect(timeline.gaps.first?.expected == true)
        #expect(timeline.findings(code: "tracking.gap").first?.severity == .info)
        #expect(timeline.findings(code: "sync.deferred").first?.severity == .info)
        let retried = timeline.attempts.filter(\.afterRefresh)
        #expect(retried.count == 1 && retried.first?.status == 200)
    }

    @Test func windowLimitsTheHistory() throws {
        let facts = Scenarios.violations
        let full = try Scenarios.timeline(facts.path)
        let drop = try #require(full.attempts.first)
        let later = try Scenarios.timeline(facts.path, TimelineOptions(since: drop.at + 30))
        #expect(later.attempts.count < full.attempts.count)
        #expect(later.attempts.allSatisfy { $0.at >= drop.at + 30 })
        #expect(later.findings.first { $0.rule == PolicyRule.retryableDropped.rawValue } == nil)
    }

    @Test func secretsNeverReachTheTimeline() throws {
        let timeline = try Scenarios.timeline(Scenarios.stranded.path)
        let text = timeline.json().jsonText + TimelineTextRenderer(colour: false).lines(timeline).joined(separator: "\n")
        #expect(!text.contains("SECRET-KEY-123456"))
        #expect(!text.contains("refresh-token-abcdef"))
        #expect(!text.contains(TimelineFixture.expiredJWT))
        #expect(text.contains("api_key=‹redacted"))
    }
}

extension Scenarios {
    /// 401s with no authorization configured; a prune and cellular deferrals on the way.
    static let noAuth: Facts = {
        var facts = Facts(path: directory.file("noauth.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            var config = TimelineFixture.plainConfig
            if case .object(var object) = config {
                object["disableAutoSyncOnCellular"] = true
                object["maxRecordsToPersist"] = 10
                config = .object(object)
            }
            try f.config(config)
            try f.log("connectivity", ["connected": true, "transport": "cellular"])
            var pending: [String] = []
            for _ in 0..<12 { pending.append(try f.fix(queued: true)) }
            try f.log("sync.deferred", ["reason": "cellular", "pending": 12])
            facts.rows["prune"] = try f.log("queue.prune", ["reason": "maxRecords", "count": 2])
            try f.log("connectivity", ["connected": true, "transport": "wifi"])
            let unauthorized = try (1...5).map { n in
                try f.failedAttempt(Array(pending.suffix(10)), status: n % 2 == 0 ? 403 : 401, failures: n)
            }
            facts.rows["first401"] = unauthorized[0]
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()

    /// Backoffs written with LongPing's jitter: one inside the ±20 % band, one outside.
    static let jitter: Facts = {
        var facts = Facts(path: directory.file("jitter.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.config(TimelineFixture.plainConfig)
            let batch = [try f.fix()]
            try f.request(batch)
            try f.response(503, count: 1)
            facts.rows["inBand"] = try f.backoff(failures: 1, delay: 11.6)
            try f.request(batch)
            try f.response(503, count: 1)
            facts.rows["outOfBand"] = try f.backoff(failures: 2, delay: 30)
            try f.request(batch)
            try f.response(429, count: 1)
            facts.rows["retryAfter"] = try f.log("http.backoff", ["failures": 3, "delay_s": 120, "retry_after": 120])
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()
}

extension Scenarios {
    /// logLevel warn: no upload rows, only the state says uploads are failing.
    static let quietLog: Facts = {
        var facts = Facts(path: directory.file("quiet.db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.writer.setState("config", TimelineFixture.plainConfig)
            try f.writer.setState("http.failures", 7)
            try f.writer.setState("http.next_attempt_at", "2026-07-25T18:00:00Z")
            for _ in 0..<4 { try f.fix(queued: true, logged: false) }
            try f.log("app", level: 2, message: "sync failed?", src: "js")
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }()
}

@Suite struct TimelineMoreScenarioTests {
    @Test func offlineQueueIsAWarningNotAnError() throws {
        let path = Scenarios.directory.file("offline.db")
        let f = try TimelineFixture(path: path)
        try f.config(TimelineFixture.plainConfig)
        try f.log("connectivity", ["connected": false, "transport": "none"])
        let pending = [try f.fix(queued: true), try f.fix(queued: true)]
        for n in 1...8 {
            try f.request(pending)
            try f.response(0, count: 2, body: "The Internet connection appears to be offline.")
            try f.backoff(failures: n, delay: BackoffSchedule.bgeo.delay(afterFailures: n))
            f.clock += BackoffSchedule.bgeo.delay(afterFailures: n)
        }
        try f.close()
        let timeline = TimelineBuilder(dump: try Dump(path: path)).build()
        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.severity == .warning)
        #expect(stranded.summary.contains("network errors") && stranded.summary.contains("offline"))
        #expect(timeline.findings(code: "policy.violation").isEmpty)
    }

    @Test func queueOnlyFixesKnowTheirMotionAtGapEdges() throws {
        let path = Scenarios.directory.file("queue-only.db")
        let f = try TimelineFixture(path: path)
        for _ in 0..<3 { try f.fix(after: 20, moving: true, queued: true, logged: false) }
        try f.fix(after: 3600, moving: false, queued: true, logged: false)  // moving gap before it
        try f.fix(after: 3600, moving: true, queued: true, logged: false)   // stationary gap before it
        try f.close()
        let timeline = TimelineBuilder(dump: try Dump(path: path)).build()
        #expect(timeline.gaps.map(\.movingAtStart) == [true, false])
        #expect(timeline.gaps.map(\.expected) == [false, true])
        #expect(timeline.pendingRecords == 5)
    }

    @Test func longpingQueueOnlyDump() throws {
        let path = Scenarios.directory.file("longping.db")
        let f = try TimelineFixture(path: path, layout: .longping)
        for _ in 0..<5 { try f.fix(after: 30, queued: true, logged: false) }
        try f.fix(after: 3600, queued: true, logged: false)
        try f.close()
        let dump = try Dump(path: path)
        let timeline = TimelineBuilder(dump: dump).build()
        #expect(timeline.policy == .longping && timeline.format == .longping)
        #expect(timeline.pendingRecords == 6 && timeline.logRows == 0 && timeline.attempts.isEmpty)
        #expect(timeline.gaps.count == 1)
        #expect(timeline.findings(code: "tracking.gap").first?.severity == .warning)
    }

    @Test func strandedFromStateWhenTheLogHasNoUploadRows() throws {
        let timeline = try Scenarios.timeline(Scenarios.quietLog.path)
        #expect(timeline.attempts.isEmpty)
        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.severity == .error)
        #expect(stranded.summary.contains("4 records") && stranded.summary.contains("7 consecutive failed uploads"))
        #expect(stranded.allUuids.count == 4)
        #expect(timeline.events.first?.kind == .app)
    }

    @Test func unauthorizedWithoutRefreshConfigured() throws {
        let facts = Scenarios.noAuth
        let timeline = try Scenarios.timeline(facts.path)
        #expect(!timeline.authorizationConfigured)
        let noRefresh = try #require(timeline.findings(code: "auth.no_refresh").first)
        #expect(noRefresh.severity == .error)
        #expect(noRefresh.summary.contains("401 ×3, 403 ×2"))
        #expect(noRefresh.allLogIds.first == facts.rows["first401"])
        // Without authorization a 401 is a plain retry: no refresh was due.
        #expect(timeline.findings(code: "policy.violation").isEmpty)
        #expect(timeline.attempts.allSatisfy { $0.outcome == .retry })
        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.summary.contains("no token refresh is configured"))
        let pruned = try #require(timeline.findings(code: "queue.pruned").first)
        #expect(pruned.severity == .warning)
        #expect(pruned.summary.contains("2 records were evicted") && pruned.summary.contains("maxRecordsToPersist = 10"))
        #expect(pruned.allLogIds == [try #require(facts.rows["prune"])])
        let deferred = try #require(timeline.findings(code: "sync.deferred").first)
        #expect(deferred.severity == .info && deferred.summary.contains("cellular"))
    }

    @Test func longpingJitterBandAndRetryAfter() throws {
        let facts = Scenarios.jitter
        let longping = try Scenarios.timeline(facts.path, TimelineOptions(policy: .longping))
        let violations = longping.findings(code: "policy.violation")
        #expect(violations.count == 1)
        let schedule = try #require(violations.first)
        #expect(schedule.rule == PolicyRule.backoffSchedule.rawValue)
        #expect(schedule.allLogIds.contains(try #require(facts.rows["outOfBand"])))
        #expect(!schedule.allLogIds.contains(try #require(facts.rows["inBand"])))
        #expect(!schedule.allLogIds.contains(try #require(facts.rows["retryAfter"])))
        #expect(schedule.summary.contains("16 s–24 s"))
        // The same log read with BGeo's schedule (no jitter, no Retry-After) breaks it three times.
        let bgeo = try Scenarios.timeline(facts.path, TimelineOptions(policy: .bgeo))
        let bgeoSchedule = try #require(bgeo.findings(code: "policy.violation").first)
        #expect(bgeoSchedule.evidence.count == 3)
    }

    // MARK: LongPing attempt counters and 413 halving

    /// The queue's attempts column (LongPing counts each other-4xx answer, deletes at 3): records
    /// near the limit are a warning; one at the limit and still queued breaks the policy.
    @Test func longpingAttemptCountersAreReadFromTheQueue() throws {
        let path = Scenarios.directory.file("longping-attempts.db")
        let f = try TimelineFixture(path: path, layout: .longping)
        var byAttempts: [Int: [String]] = [:]
        for attempts in [0, 0, 1, 1, 1, 2, 2, 3] {
            byAttempts[attempts, default: []].append(try f.fix(after: 30, queued: true, logged: false, attempts: attempts))
        }
        try f.close()
        let timeline = TimelineBuilder(dump: try Dump(path: path)).build()
        let tried = try #require(timeline.findings(code: "queue.attempts").first)
        #expect(tried.severity == .warning)
        #expect(tried.summary.hasPrefix("6 queued records were already answered by a non-retryable 4xx"))
        #expect(tried.summary.contains("1 at 3 of 3, 2 at 2 of 3, 3 at 1 of 3"))
        #expect(tried.summary.contains("deletes up to 2 records"))
        #expect(tried.allUuids == byAttempts[3])
        let kept = try #require(timeline.findings(code: "policy.violation").first { $0.rule == PolicyRule.keptAfterAttempts.rawValue })
        #expect(kept.severity == .warning)
        #expect(kept.allUuids == byAttempts[3])
        // BGeo's policy counts no attempts: the column says nothing about it.
        let asBGeo = TimelineBuilder(dump: try Dump(path: path), options: TimelineOptions(policy: .bgeo)).build()
        #expect(asBGeo.findings(code: "queue.attempts").isEmpty)
        #expect(asBGeo.findings(code: "policy.violation").isEmpty)
    }

    /// LongPing answers a 413 by re-sending at once with half the batch: a next request that did
    /// not shrink, or a backoff instead of the re-send, breaks the rule; a halved one does not.
    @Test func longping413MustHalveTheBatch() throws {
        let path = Scenarios.directory.file("halving.db")
        let f = try TimelineFixture(path: path)
        try f.config(TimelineFixture.plainConfig)
        var batch: [String] = []
        for _ in 0..<4 { batch.append(try f.fix(queued: true)) }
        try f.request(batch)
        let halvedOK = try f.response(413, count: 4)
        try f.request(Array(batch.prefix(2)))
        try f.response(200, count: 2)
        try f.request(Array(batch.suffix(2)))
        try f.response(200, count: 2)
        var more: [String] = []
        for _ in 0..<4 { more.append(try f.fix(queued: true)) }
        try f.request(more)
        let notHalved = try f.response(413, count: 4)
        let sameAgain = try f.request(more)
        let backoffFirst = try f.response(413, count: 4)
        let backoffRow = try f.backoff(failures: 1, delay: 10)
        try f.close()
        let timeline = TimelineBuilder(dump: try Dump(path: path), options: TimelineOptions(policy: .longping)).build()
        let violation = try #require(timeline.findings(code: "policy.violation").first { $0.rule == PolicyRule.batchNotHalved.rawValue })
        #expect(violation.severity == .error)
        #expect(violation.evidence.count == 2)
        #expect(violation.evidence[0].logIds == [notHalved, sameAgain])
        #expect(violation.evidence[1].logIds == [backoffFirst, backoffRow])
        #expect(!violation.allLogIds.contains(halvedOK))
        #expect(violation.summary.contains("carried 4 records instead of at most 2"))
    }

    // MARK: more gaps than listed

    /// The listing stops at `gapLimit`, the diagnosis does not: a gap while moving after the
    /// listed ones is still a finding, and the stationary ones are all counted.
    @Test func gapsBeyondTheListingLimitAreStillDiagnosed() throws {
        let path = Scenarios.directory.file("many-gaps.db")
        let f = try TimelineFixture(path: path)
        try f.fix(moving: false, queued: true, logged: false)
        for _ in 0..<5 { try f.fix(after: 1800, moving: false, queued: true, logged: false) }  // 5 stationary gaps
        try f.fix(after: 10, moving: true, queued: true, logged: false)
        try f.fix(after: 3600, moving: true, queued: true, logged: false)                      // a gap while moving
        try f.close()
        let timeline = TimelineBuilder(dump: try Dump(path: path), options: TimelineOptions(gapLimit: 3)).build()
        #expect(timeline.gaps.count == 3)
        #expect(timeline.omittedGaps == 3)
        let gapFindings = timeline.findings(code: "tracking.gap")
        #expect(gapFindings.contains { $0.severity == .warning && $0.summary.hasPrefix("No fixes for 1 h") })
        #expect(gapFindings.contains { $0.severity == .info && $0.summary.hasPrefix("5 gaps while the device was stationary") })
    }
}
