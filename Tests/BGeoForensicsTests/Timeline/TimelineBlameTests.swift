import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Dumps whose fault lies with one party each: the app's config, the server, the device or
/// the engine. Built once for the suite.
enum BlameScenarios {
    static let directory = TestDirectory("blame")

    /// `authorization` minus `dropping` keys; 401s each followed by a backoff on the BGeo
    /// schedule and no refresh (what the engine does when it cannot refresh).
    static func unrefreshable(_ name: String, dropping: [String], stateAuth: JSONValue? = nil) -> Scenarios.Facts {
        var facts = Scenarios.Facts(path: directory.file(name + ".db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            if let stateAuth { try f.writer.setState("auth", stateAuth) }
            guard case .object(var config) = TimelineFixture.authorizedConfig,
                  case .object(var authorization)? = config["authorization"] else { return facts }
            for key in dropping { authorization[key] = nil }
            config["authorization"] = .object(authorization)
            try f.config(.object(config))
            let pending = [try f.fix(queued: true), try f.fix(queued: true)]
            let rows = try (1...4).map { try f.failedAttempt(pending, status: 401, failures: $0, body: "{\"error\":\"token expired\"}") }
            facts.rows["first401"] = rows[0]
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }

    static let noRefreshURL = unrefreshable("no-refresh-url", dropping: ["refreshUrl"])
    static let noRefreshToken = unrefreshable("no-refresh-token", dropping: ["refreshToken"])
    /// The config lacks the refresh token but the engine's stored pair has one: it can refresh.
    static let tokenInState = unrefreshable("token-in-state", dropping: ["refreshToken"],
                                            stateAuth: ["accessToken": .string(TimelineFixture.expiredJWT), "refreshToken": "rotated-refresh-1234"])

    /// Refreshes answered with `status` each time; uploads stay 401.
    static func refreshFailing(_ name: String, status: Int) -> Scenarios.Facts {
        let facts = Scenarios.Facts(path: directory.file(name + ".db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.config(TimelineFixture.authorizedConfig)
            let pending = [try f.fix(queued: true)]
            for n in 1...4 {
                try f.request(pending)
                try f.response(401, count: 1)
                try f.log("auth.refresh", ["url": "https://ingest.example/auth/refresh"])
                try f.log("auth.refresh.result", level: 1, ["success": false, "status": .int(Int64(status))])
                try f.backoff(failures: n, delay: BackoffSchedule.bgeo.delay(afterFailures: n))
                f.clock += BackoffSchedule.bgeo.delay(afterFailures: n)
            }
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }

    static let refreshMalformed = refreshFailing("refresh-400", status: 400)
    static let refreshRevoked = refreshFailing("refresh-401", status: 401)

    /// Uploads failing with `status` (retried on schedule) until the dump.
    static func failing(_ name: String, status: Int) -> Scenarios.Facts {
        let facts = Scenarios.Facts(path: directory.file(name + ".db"))
        do {
            let f = try TimelineFixture(path: facts.path)
            try f.config(TimelineFixture.plainConfig)
            let pending = [try f.fix(queued: true), try f.fix(queued: true)]
            for n in 1...5 { try f.failedAttempt(pending, status: status, failures: n, extraWait: 60) }
            try f.close()
        } catch { Issue.record("fixture failed: \(error)") }
        return facts
    }

    static let serverDown = failing("server-503", status: 503)
    static let offline = failing("offline", status: 0)
}

@Suite struct TimelineBlameTests {
    /// The documented behaviour of an authorization without a refreshUrl is a plain retry:
    /// the app's configuration is at fault, not the engine (issue 15).
    @Test(arguments: [("refreshUrl", BlameScenarios.noRefreshURL), ("refreshToken", BlameScenarios.noRefreshToken)])
    func authorizationThatCannotRefreshBlamesTheAppConfig(_ missing: String, _ facts: Scenarios.Facts) throws {
        let timeline = try Scenarios.timeline(facts.path)
        #expect(timeline.findings(code: "policy.violation").isEmpty,
                "\(timeline.findings(code: "policy.violation").map(\.summary))")
        let noRefresh = try #require(timeline.findings(code: "auth.no_refresh").first)
        #expect(noRefresh.responsible == .appConfig)
        #expect(noRefresh.summary.contains("authorization without \(missing)"), "\(noRefresh.summary)")
        #expect(noRefresh.summary.contains("not an engine fault"))
        #expect(noRefresh.action.contains(missing))
        #expect(noRefresh.allLogIds.first == facts.rows["first401"])
        #expect(timeline.tokenRefresh.contains("no token refresh possible"))
        // The queue is stuck for the same reason, with the same party to fix it.
        let stranded = try #require(timeline.findings(code: "queue.stranded").first)
        #expect(stranded.responsible == .appConfig)
        #expect(stranded.summary.contains("has no \(missing)"))
    }

    @Test func aRefreshTokenInTheStoredPairMakesTheSkippedRefreshAnEngineFault() throws {
        let timeline = try Scenarios.timeline(BlameScenarios.tokenInState.path)
        #expect(timeline.tokenRefresh == "token refresh configured")
        #expect(timeline.findings(code: "auth.no_refresh").isEmpty)
        let violation = try #require(timeline.findings(code: "policy.violation").first { $0.rule == PolicyRule.refreshSkipped.rawValue })
        #expect(violation.responsible == .engine)
        #expect(violation.action.contains("SDK maintainers"))
    }

    @Test func aMalformedRefreshRequestIsTheAppsPayloadARevokedTokenIsTheServers() throws {
        let malformed = try #require(try Scenarios.timeline(BlameScenarios.refreshMalformed.path).findings(code: "auth.refresh_failing").first)
        #expect(malformed.responsible == .appConfig)
        #expect(malformed.action.contains("refreshPayload"))
        let revoked = try #require(try Scenarios.timeline(BlameScenarios.refreshRevoked.path).findings(code: "auth.refresh_failing").first)
        #expect(revoked.responsible == .server)
        #expect(revoked.summary.contains("rejects the stored refresh token"))
        #expect(revoked.action.contains("signs in again"))
    }

    @Test func serverErrorsBlameTheServerNetworkErrorsTheDevice() throws {
        let down = try #require(try Scenarios.timeline(BlameScenarios.serverDown.path).findings(code: "queue.stranded").first)
        #expect(down.responsible == .server)
        #expect(down.action.contains("ingest server"))
        let offline = try #require(try Scenarios.timeline(BlameScenarios.offline.path).findings(code: "queue.stranded").first)
        #expect(offline.responsible == .device)
    }

    /// Every rule of the existing scenarios names its party: engine deviations are the engine's,
    /// poison is the server's answer, config choices are the app's, stationary gaps nobody's.
    @Test func everyFindingSaysWhoAndWhatToDo() throws {
        let expectations: [(Scenarios.Facts, String, Responsibility)] = [
            (Scenarios.violations, "policy.violation", .engine),
            (Scenarios.poison, "poison.dropped", .server),
            (Scenarios.noAuth, "auth.no_refresh", .appConfig),
            (Scenarios.noAuth, "sync.deferred", .appConfig),
            (Scenarios.stranded, "auth.refresh_failing", .appConfig),  // the fixture's refresh fails with 400
            (Scenarios.relaunchGap, "tracking.gap", .device),
            (Scenarios.quietLog, "queue.stranded", .unknown),
        ]
        for (facts, code, party) in expectations {
            let timeline = try Scenarios.timeline(facts.path)
            let finding = try #require(timeline.findings(code: code).first, "\(code) in \(facts.path)")
            #expect(finding.responsible == party, "\(code): \(finding.responsible)")
        }
        let all = [Scenarios.stranded, Scenarios.poison, Scenarios.throttled, Scenarios.violations, Scenarios.relaunchGap,
                   Scenarios.healthy, Scenarios.noAuth, Scenarios.quietLog, BlameScenarios.noRefreshURL]
        for facts in all {
            for finding in try Scenarios.timeline(facts.path).findings {
                #expect(!finding.action.isEmpty, "\(finding.code) has no action")
                if finding.code == "policy.violation" { #expect(finding.responsible == .engine) }
            }
        }
    }

    @Test func findingsCarryWhoAndWhatInJSONAndText() throws {
        let timeline = try Scenarios.timeline(BlameScenarios.noRefreshURL.path)
        let json = timeline.json(findingsOnly: true)
        let first = try #require(json["findings"]?.arrayValue?.first { $0["code"]?.stringValue == "auth.no_refresh" })
        #expect(first["responsible"]?.stringValue == "app-config")
        #expect(first["action"]?.stringValue?.contains("refreshUrl") == true)
        #expect(json["tokenRefresh"]?.stringValue == "authorization without refreshUrl: no token refresh possible")
        let text = TimelineTextRenderer(colour: false).lines(timeline, findingsOnly: true).joined(separator: "\n")
        #expect(text.contains("Who: the app's SDK configuration. What to do:"))
    }

    /// With a short --gap, neighbouring gaps share context rows: each row is cited once.
    @Test func evidenceCitesEachRowOnce() throws {
        var options = TimelineOptions()
        options.gapThreshold = 15
        for facts in [Scenarios.healthy, Scenarios.relaunchGap, Scenarios.stranded] {
            for finding in try Scenarios.timeline(facts.path, options).findings {
                for evidence in finding.evidence {
                    #expect(Set(evidence.logIds).count == evidence.logIds.count, "\(finding.code): \(evidence.logIds)")
                    #expect(Set(evidence.uuids).count == evidence.uuids.count, "\(finding.code): \(evidence.uuids)")
                }
            }
        }
    }
}
