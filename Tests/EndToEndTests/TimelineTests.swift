import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `timeline` run as a user would, on a real dump (WAL kept) with a known history:
/// a queue stranded behind a failing token refresh, a 429 answered by a drop, and a gap.
@Suite struct TimelineTests {
    static let directory = TestDirectory("timeline")
    static let apiKey = "ak_live_5c4b3a29e8f7"
    static let refreshToken = "rt-secret-0f9e8d7c6b5a"
    static let accessToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYiLCJleHAiOjE3ODQ4ODAwMDB9.c2lnLXNlY3JldC12YWx1ZQ"

    struct Built: Sendable {
        var path: String
        var rows: [String: Int64] = [:]
        var dropped: [String] = []
    }

    static let dump: Built = {
        var built = Built(path: directory.file("bgeo.db"))
        do {
            let w = try DumpWriter(path: built.path, layout: .current, wal: true)
            var clock = 1_785_000_000.0
            func log(_ event: String, _ data: JSONValue?, level: Int = 3, after: Double = 1, message: String? = nil) throws -> Int64 {
                clock += after
                return try w.insertLog(ts: Timestamp.format(clock), level: level, event: event, message: message, data: data)
            }
            var n = 0
            func fix(queued: Bool, after: Double = 10) throws -> String {
                clock += after
                n += 1
                let uuid = "fix-\(n)"
                if queued {
                    try w.insertRecord(["uuid": .string(uuid), "timestamp": .string(Timestamp.format(clock)), "is_moving": true,
                                        "coords": ["latitude": 52.2, "longitude": 21.0, "accuracy": 5, "speed": 6]])
                }
                _ = try log("location", ["uuid": .string(uuid), "timestamp": .string(Timestamp.format(clock)),
                                         "latitude": 52.2, "longitude": 21.0, "is_moving": true, "speed": 6], level: 4, after: 0)
                return uuid
            }
            let config: JSONValue = [
                "url": .string("https://ingest.example/l?api_key=\(apiKey)"), "batchSync": true,
                "authorization": ["strategy": "JWT", "accessToken": .string(accessToken),
                                  "refreshToken": .string(refreshToken), "refreshUrl": "https://ingest.example/r"],
            ]
            try w.setState("config", config)
            try w.setState("auth", ["accessToken": .string(accessToken), "refreshToken": .string(refreshToken)])
            try w.setState("http.failures", 6)
            _ = try log("config", config)
            let thrown = [try fix(queued: false), try fix(queued: false)]
            _ = try log("http.request", ["url": .string("https://ingest.example/l?api_key=\(apiKey)"), "count": 2,
                                         "uuids": .array(thrown.map { .string($0) })])
            built.rows["429"] = try log("http.response", ["status": 429, "count": 2, "response": "slow down"])
            built.rows["drop"] = try log("queue.drop", ["uuids": .array(thrown.map { .string($0) }), "status": 429], level: 2)
            built.dropped = thrown
            clock += 1800  // a 30-minute silence while moving
            var pending: [String] = []
            for _ in 0..<4 { pending.append(try fix(queued: true)) }
            for failure in 1...6 {
                let request = try log("http.request", ["url": .string("https://ingest.example/l?api_key=\(apiKey)"), "count": 4,
                                                       "uuids": .array(pending.map { .string($0) })])
                if failure == 1 { built.rows["firstStrandedRequest"] = request }
                _ = try log("http.response", ["status": 401, "count": 4,
                                              "response": .string("{\"error\":\"expired\",\"access_token\":\"\(accessToken)\"}")])
                _ = try log("auth.refresh", ["url": "https://ingest.example/r"])
                _ = try log("auth.refresh.result", ["success": false, "status": 400], level: 1)
                let delay = BackoffSchedule.bgeo.delay(afterFailures: failure)
                _ = try log("http.backoff", ["failures": .int(Int64(failure)), "delay_s": .double(delay),
                                             "next_attempt_at": .string(Timestamp.format(clock + delay))])
                clock += delay
            }
            _ = try log("mystery.event", ["detail": "kept verbatim"], message: "vendor line")
            clock += 1
            _ = try w.insertLog(ts: Timestamp.format(clock), level: 3, src: "js", event: "app",
                                message: "screen \u{1B}[2J cleared", data: nil as String?)
            try w.close(keepWAL: true)
        } catch { Issue.record("fixture failed: \(error)") }
        return built
    }()

    static func hashes(_ path: String) throws -> [String] {
        try [path, path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }.map { try EvidenceCopy.sha256(ofFile: $0) }
    }

    static func assertNoSecrets(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in [accessToken, refreshToken, apiKey] {
            #expect(!text.contains(secret), "secret leaked", sourceLocation: sourceLocation)
        }
    }

    @Test func jsonCarriesAttemptsFindingsAndGaps() throws {
        let built = Self.dump
        let before = try Self.hashes(built.path)
        let result = try ToolRunner.run(["timeline", built.path, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        Self.assertNoSecrets(result.stdout)
        let json = try JSONParser.parse(result.stdout)
        #expect(json["policy"] == "bgeo")
        let attempts = try #require(json["attempts"]?.arrayValue)
        #expect(attempts.count == 7)
        let first = try #require(attempts.first)
        for key in ["at", "logId", "count", "status", "outcome", "uuids"] { #expect(first[key] != nil, "attempts[].\(key)") }
        #expect(first["status"] == 429 && first["outcome"] == "retry" && first["count"] == 2)
        #expect(first["uuids"] == .array(built.dropped.map { .string($0) }))
        #expect(attempts[1]["logId"] == .int(built.rows["firstStrandedRequest"] ?? -1))
        #expect(attempts[1]["outcome"] == "refresh")

        let findings = try #require(json["findings"]?.arrayValue)
        for finding in findings {
            for key in ["code", "severity", "summary", "evidence"] { #expect(finding[key] != nil, "findings[].\(key)") }
        }
        let codes = findings.compactMap { $0["code"]?.stringValue }
        #expect(codes.contains("queue.stranded") && codes.contains("auth.refresh_failing"))
        #expect(codes.contains("poison.dropped") && codes.contains("tracking.gap"))
        let violation = try #require(findings.first { $0["rule"] == "retryable-dropped" })
        #expect(violation["code"] == "policy.violation" && violation["severity"] == "error")
        let ids = violation["evidence"]?.arrayValue?.first?["logIds"]
        #expect(ids == .array([.int(built.rows["429"] ?? -1), .int(built.rows["drop"] ?? -1)]))
        #expect(findings.first?["severity"] == "error")  // most severe first

        let gaps = try #require(json["gaps"]?.arrayValue)
        #expect(gaps.count == 1)
        for key in ["start", "end", "seconds"] { #expect(gaps[0][key] != nil) }
        #expect((gaps[0]["seconds"]?.doubleValue ?? 0) > 1800)
        let events = try #require(json["events"]?.arrayValue)
        #expect(events.contains { $0["kind"] == "unknown" && ($0["summary"]?.stringValue ?? "").contains("kept verbatim") })

        // Deterministic, and the evidence is untouched.
        let again = try ToolRunner.run(["timeline", built.path, "--json"])
        #expect(again.stdout == result.stdout)
        #expect(try Self.hashes(built.path) == before)
    }

    @Test func humanViewCollapsesRepeatsWithoutColourWhenPiped() throws {
        let result = try ToolRunner.run(["timeline", Self.dump.path])
        #expect(result.exitCode == 0, "\(result.stderr)")
        Self.assertNoSecrets(result.stdout)
        #expect(!result.stdout.contains("\u{1B}"))  // neither our colours nor the app line's escape
        #expect(result.stdout.contains("screen \\u{1b}[2J cleared"))
        #expect(result.stdout.contains("401 → refresh failed (400) ×6, backoff 5 s → 2 min 40 s"))
        #expect(result.stdout.contains("token refresh failed") == false)  // shown on the attempt line instead
        #expect(result.stdout.contains("ERROR"))
        #expect(result.stdout.contains("queue.stranded"))
        #expect(result.stdout.contains("api_key=‹redacted"))
    }

    @Test func findingsOnlyPolicyAndWindowOptions() throws {
        let path = Self.dump.path
        let only = try ToolRunner.run(["timeline", path, "--json", "--findings-only"])
        let json = try JSONParser.parse(only.stdout)
        #expect(json["attempts"] == nil && json["findings"]?.arrayValue?.isEmpty == false)

        let text = try ToolRunner.run(["timeline", path, "--findings-only"])
        #expect(text.stdout.contains("Findings") && !text.stdout.contains("History"))

        let own = try JSONParser.parse(try ToolRunner.run(["timeline", path, "--json", "--policy", "bgeo"]).stdout)
        #expect(own["policy"] == "bgeo")
        // Issue 25: another engine's policy would blame this engine for rules it never promised.
        let misfit = try ToolRunner.run(["timeline", path, "--json", "--policy", "longping"])
        #expect(misfit.exitCode == 2 && misfit.stdout.isEmpty, "\(misfit.stdout)")
        #expect(misfit.stderr.contains("--policy longping does not fit") && misfit.stderr.contains("it is a bgeo dump"), "\(misfit.stderr)")
        let longpingSample = ReportE2E.packageRoot + "/Samples/longping.db"
        #expect(try ToolRunner.run(["timeline", longpingSample, "--policy", "longping"]).exitCode == 0)
        let bgeoOnLongping = try ToolRunner.run(["timeline", longpingSample, "--policy", "bgeo"])
        #expect(bgeoOnLongping.exitCode == 2 && bgeoOnLongping.stderr.contains("it is a longping dump"), "\(bgeoOnLongping.stderr)")

        let wideGap = try JSONParser.parse(try ToolRunner.run(["timeline", path, "--json", "--gap", "1h"]).stdout)
        #expect(wideGap["gaps"]?.arrayValue?.isEmpty == true)

        let late = try JSONParser.parse(try ToolRunner.run(["timeline", path, "--json", "--since", "2026-07-25T18:00:00Z"]).stdout)
        #expect((late["attempts"]?.arrayValue?.count ?? 99) < 7)

        let bad = try ToolRunner.run(["timeline", path, "--gap", "soon"])
        #expect(bad.exitCode == 2 && bad.stderr.contains("--gap"))
        let badPolicy = try ToolRunner.run(["timeline", path, "--policy", "other"])
        #expect(badPolicy.exitCode == 2)
        let help = try ToolRunner.run(["timeline", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--findings-only"))
    }

    @Test func showSecretsAndNonDumps() throws {
        let shown = try ToolRunner.run(["timeline", Self.dump.path, "--json", "--show-secrets"])
        #expect(shown.stdout.contains(Self.apiKey))
        let text = Self.directory.file("notes.txt")
        try "not a database".write(toFile: text, atomically: true, encoding: .utf8)
        let result = try ToolRunner.run(["timeline", text])
        #expect(result.exitCode == 2 && !result.stderr.isEmpty)
        let missing = try ToolRunner.run(["timeline"])
        #expect(missing.exitCode == 2)
    }
}

/// The simulator's committed sample dumps (an independent engine model) read by `timeline`:
/// each must give the diagnosis its Samples/README.md promises, and no false alarm.
@Suite struct TimelineSampleTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples").path

    func findings(_ name: String) throws -> [JSONValue] {
        let path = Self.samples + "/" + name
        try #require(FileManager.default.fileExists(atPath: path), "missing sample \(path)")
        let result = try ToolRunner.run(["timeline", path, "--json", "--findings-only"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        return try #require(JSONParser.parse(result.stdout)["findings"]?.arrayValue)
    }

    func alarms(_ findings: [JSONValue]) -> [String] {
        findings.filter { $0["severity"] != "info" }.compactMap { $0["code"]?.stringValue }
    }

    @Test func healthySamplesRaiseNoAlarm() throws {
        for name in ["healthy-day.db", "wal-mode.db", "legacy-schema.db", "teleports.db"] {
            #expect(alarms(try findings(name)).isEmpty, "\(name)")
        }
    }

    /// The LongPing sample's attempts column (Samples/README.md: ids 1–12 at 2, ids 13–30 at 1)
    /// is its only alarm: records one or two 4xx answers away from deletion.
    /// A pasted timeline names what it read: each input (the WAL sample has two) with its
    /// size and SHA-256, hashed beside the scans, as `sha256sum` would give it.
    @Test func timelineNamesItsInputsWithTheirHashes() throws {
        let path = Self.samples + "/wal-mode.db"
        let result = try ToolRunner.run(["timeline", path, "--json", "--findings-only"])
        #expect(result.exitCode == 0)
        let inputs = try #require(JSONParser.parse(result.stdout)["inputs"]?.arrayValue)
        #expect(inputs.map { $0["path"]?.stringValue } == [path, path + "-wal"])
        for input in inputs {
            let file = try #require(input["path"]?.stringValue)
            #expect(input["sha256"]?.stringValue == (try EvidenceCopy.sha256(ofFile: file)))
            #expect(input["bytes"]?.intValue.map(Int64.init) == (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64))
        }
        let text = try ToolRunner.run(["timeline", path]).stdout
        #expect(text.contains("input \(path)-wal · "))
    }

    @Test func longpingSampleWarnsAboutAttemptCounters() throws {
        let all = try findings("longping.db")
        #expect(alarms(all) == ["queue.attempts"])
        let attempts = try #require(all.first { $0["code"] == "queue.attempts" })
        #expect(attempts["severity"] == "warning")
        let summary = attempts["summary"]?.stringValue ?? ""
        #expect(summary.contains("30 queued records") && summary.contains("12 at 2 of 3, 18 at 1 of 3"))
        #expect(summary.contains("deletes up to 12 records"))
    }

    @Test func strandedRefreshSample() throws {
        let all = try findings("stranded-refresh.db")
        #expect(Set(alarms(all)) == ["queue.stranded", "auth.refresh_failing", "queue.pruned"])
        let stranded = try #require(all.first { $0["code"] == "queue.stranded" })
        #expect(stranded["severity"] == "error")
        let summary = stranded["summary"]?.stringValue ?? ""
        #expect(summary.contains("400 records") && summary.contains("106 attempts"))
        #expect(!all.contains { $0["code"] == "policy.violation" })
    }

    @Test func poisonBatchSample() throws {
        let all = try findings("poison-batch.db")
        #expect(alarms(all) == ["poison.dropped"])
        let poison = try #require(all.first { $0["code"] == "poison.dropped" })
        let uuids = poison["evidence"]?.arrayValue?.flatMap { $0["uuids"]?.arrayValue ?? [] }
        #expect(uuids == ["b437746f-18c7-4460-9786-9da0c3cb201e"])
    }

    @Test func processKillSample() throws {
        let all = try findings("process-kill.db")
        #expect(alarms(all) == ["tracking.gap"])
        let gap = try #require(all.first { $0["code"] == "tracking.gap" && $0["severity"] == "warning" })
        let summary = gap["summary"]?.stringValue ?? ""
        #expect(summary.contains("40 min") && summary.contains("relaunched") && summary.contains("moved 26.8 km"))
    }
}
