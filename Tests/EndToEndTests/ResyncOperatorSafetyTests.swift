import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// What makes `resync` safe to point at a customer's dump: it never guesses where to send, says
/// where it sends before it does, checks every setting it is given, explains every failure,
/// keeps learned secrets redacted in every later command, lets exactly one run work a copy, and
/// stops cleanly on Ctrl-C.
@Suite(.serialized) struct ResyncOperatorSafetyTests {
    static let resync = ResyncEndToEndTests.resync
    static let summary = ResyncEndToEndTests.summary

    // MARK: never guess the target

    @Test func withoutURLTheRecordedEndpointIsNamedNotUsed() throws {
        let dir = TestDirectory("resync-recorded-url")
        // The "customer's production server" is a local one here, so we can see nothing reaches it.
        let production = try ResyncIngestServer(dir)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: [
            "url": .string(production.url("/api/locations")), "headers": ["X-Api-Key": .string(ResyncEndToEndTests.apiKey)]])
        let refused = try Self.resync(dump, dir, [])
        #expect(refused.exitCode == 2)
        #expect(refused.stderr.contains("The dump records url \(production.url("/api/locations"))"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--to-recorded-url"))
        #expect(production.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("work")))
        // Opting in sends there, and says so before sending.
        let opted = try Self.resync(dump, dir, ["--to-recorded-url", "--json"])
        #expect(opted.exitCode == 0, "\(opted.stderr)")
        let origin = "http://127.0.0.1:\(production.port)"
        #expect(opted.stderr.contains("Sending to \(origin) only (locations: \(production.url("/api/locations")))"), "\(opted.stderr)")
        #expect(production.delivered("/api/locations").count == 2)
        let s = try Self.summary(opted)
        #expect(s["targets"]?["origins"] == .array([.string(origin)]))
        #expect(s["targets"]?["url"] == .string(production.url("/api/locations")))
    }

    @Test func recordedRefreshEndpointOnAnotherOriginIsNotUsedSilently() throws {
        let dir = TestDirectory("resync-recorded-refresh")
        let server = try ResyncIngestServer(dir, behaviour: [
            "auth": ["paths": ["/locs"], "valid": []], "refresh": ["path": "/refresh", "issue": ["fresh-token-2"]]])
        let customer = try ResyncIngestServer(dir)  // the recorded refresh endpoint, another origin
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: [
            "authorization": ["accessToken": "old-token-1", "refreshToken": "customer-refresh-token-1",
                              "refreshUrl": .string(customer.url("/device/auth/refresh"))]])
        let refused = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--max-attempts", "3"])
        #expect(refused.exitCode == 2)
        #expect(customer.requests().isEmpty, "the customer's refresh endpoint got the refresh token")
        #expect(refused.stderr.contains("authorization.refreshUrl is \(customer.url("/device/auth/refresh"))"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--set authorization.refreshUrl=URL"))
        // Named explicitly: used, and printed with the upload URL.
        let named = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--set", "authorization.refreshUrl=\(server.url("/refresh"))", "--json"])
        #expect(named.exitCode == 0, "\(named.stderr)")
        #expect(named.stderr.contains("token refresh: \(server.url("/refresh"))"))
        #expect(customer.requests().isEmpty && server.delivered().count == 2)
        #expect(try Self.summary(named)["targets"]?["refreshUrl"] == .string(server.url("/refresh")))
    }

    @Test func logLaneNeedsItsEndpointNamedToo() throws {
        let dir = TestDirectory("resync-recorded-log-url")
        let server = try ResyncIngestServer(dir)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 1, config: ["logUrl": .string(server.url("/logs"))], logs: 5)
        let refused = try Self.resync(dump, dir, ["--logs"])
        #expect(refused.exitCode == 2 && refused.stderr.contains("no --log-url given") && refused.stderr.contains("--to-recorded-url"))
        #expect(server.requests().isEmpty)
    }

    // MARK: settings are checked

    @Test(arguments: [
        (["--set", "maxBatchSize=abc"], "maxBatchSize takes an integer ≥ 1, or -1 for unlimited, not the string \"abc\""),
        (["--set", "httpTimeoutMs=-5"], "httpTimeoutMs takes a whole number of milliseconds from 1 to 3600000, not the number -5 (out of range)"),
        (["--set", "batchSync=maybe"], "batchSync takes true or false, not the string \"maybe\""),
        (["--set", "params=5"], "params takes a JSON object, not the number 5"),
        (["--set", "maxBatchSise=10"], "the SDK has no config key 'maxBatchSise' (did you mean maxBatchSize?)"),
        (["--set", "authorization.refreshUrll=http://x/y"], "authorization has no key 'authorization.refreshUrll' (did you mean authorization.refreshUrl?)"),
        (["--set", "authorization.accessToken=12345678"], "authorization.accessToken takes a string, not a number"),
        (["--set", "maxBatchSize.limit=3"], "maxBatchSize is not an object"),
        (["--config", "CONFIG:{\"batchSync\":true,\"maxBatchSize\":0}"], "maxBatchSize takes an integer ≥ 1, or -1 for unlimited, not the number 0 (out of range)"),
        (["--config", "CONFIG:{\"batchsync\":true,\"retryForever\":true}"], "the SDK has no config key 'retryForever'"),
        (["--config", "CONFIG:{\"headers\":{\"X-A\":[1]}}"], "headers.X-A takes a string (a header value), not an array"),
    ])
    func wrongSettingsAreRefusedNamingTheKey(_ arguments: [String], _ expected: String) throws {
        let dir = TestDirectory("resync-settings")
        let server = try ResyncIngestServer(dir)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 3, config: [:])
        var words = arguments
        if let config = words.last, config.hasPrefix("CONFIG:") {
            try String(config.dropFirst(7)).write(toFile: dir.file("c.json"), atomically: true, encoding: .utf8)
            words[words.count - 1] = dir.file("c.json")
        }
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs")] + words)
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(!result.stderr.contains("12345678"))
        #expect(server.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("work")))
    }

    @Test func goodSettingsStillPass() throws {
        let dir = TestDirectory("resync-settings-ok")
        let server = try ResyncIngestServer(dir)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 3, config: [:])
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--set", "BATCHSYNC=true", "--set", "maxBatchSize=2",
                                                 "--set", "httpTimeoutMs=2500.0", "--set", "params.deviceId=dev-1", "--set", "extras=null",
                                                 "--set", "logLevel=verbose", "--set", "kalmanProfile=aggressive"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(server.requests().map(\.uuids.count) == [2, 1])
    }

    // MARK: failures say why

    @Test func networkFailuresSayWhyInTheProgressSummaryAndJSON() throws {
        let dir = TestDirectory("resync-reasons")
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 1, config: ["httpTimeoutMs": 700])
        let slow = try ResyncIngestServer(dir, behaviour: ["delay_ms": 3000])
        let hangingUp = try ResyncIngestServer(dir, behaviour: ["uuids": [ResyncEndToEndTests.uuid(1): ["drop": 100]]])
        let cases: [(url: String, reason: String, words: String)] = [
            ("http://host-that-does-not-exist.invalid/locs", "dns", "could not resolve host 'host-that-does-not-exist.invalid'"),
            ("http://127.0.0.1:1/locs", "refused", "connection refused by 127.0.0.1:1"),
            (slow.url("/locs"), "timeout", "within httpTimeoutMs (700 ms) while waiting for the response"),
            (hangingUp.url("/locs"), "reset", "closed the connection without answering"),
        ]
        for (index, c) in cases.enumerated() {
            let result = try ToolRunner.run(["resync", dump, "--work", dir.file("work-\(index)"), "--url", c.url,
                                             "--max-attempts", "1", "--json"])
            #expect(result.exitCode == 3, "\(c.reason): \(result.stderr)")
            let s = try Self.summary(result)
            #expect(s["lastFailure"]?["reason"] == .string(c.reason), "\(s["lastFailure"] ?? .null)")
            #expect(s["lastFailure"]?["message"]?.stringValue?.contains(c.words) == true, "\(s["lastFailure"] ?? .null)")
            #expect(result.stderr.contains("no response (\(c.reason): "), "\(result.stderr)")
            let text = try ToolRunner.run(["resync", dump, "--work", dir.file("work-\(index)"), "--url", c.url, "--max-attempts", "1"])
            #expect(text.stdout.contains("last failure: locations, no response (\(c.reason)): ") && text.stdout.contains(c.words),
                    "\(text.stdout)")
            #expect(text.stderr.contains("last: no response (\(c.reason): "), "\(text.stderr)")
        }
        // 503 first, then hang-ups: the progress line and the summary keep the last HTTP status.
        let again = try ResyncIngestServer(dir, behaviour: ["paths": ["/locs": ["statuses": [503, "drop"]]]])
        let text = try ToolRunner.run(["resync", dump, "--work", dir.file("work-last-status"), "--url", again.url("/locs"),
                                       "--max-attempts", "2", "--backoff-initial", "0.01s"])
        #expect(text.stderr.contains("last: status 503"), "\(text.stderr)")
        #expect(text.stderr.contains("last: no response (reset: ") && text.stderr.contains("last HTTP status 503"), "\(text.stderr)")
        #expect(text.stdout.contains("last HTTP status 503"), "\(text.stdout)")
        let db = try Database(path: dir.file("work-last-status/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT status, error FROM journal ORDER BY id")
        var rows: [String] = []
        while try stmt.step() { rows.append("\(stmt.int(0)) \(stmt.text(1) ?? "-")") }
        #expect(rows.count == 2 && rows[0] == "503 -" && rows[1].hasPrefix("0 reset: "), "\(rows)")
    }

    @Test func tlsFailuresSayWhichCheckFailed() throws {
        if let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-tls-reasons")
        let ca = try TestCertificateAuthority()
        let server = try ResyncIngestServer(dir, tlsCertificate: ca.serverPEM)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 1, config: [:])
        // Outside the namespace the test CA is trusted by nobody.
        let untrusted = try ToolRunner.run(["resync", dump, "--work", dir.file("w1"), "--url", server.url("/locs"), "--max-attempts", "1", "--json"])
        #expect(try Self.summary(untrusted)["lastFailure"]?["message"]?.stringValue?
            .contains("certificate verify failed (unable to get local issuer certificate)") == true, "\(untrusted.stdout)")
        // Trusted CA, but the certificate names 127.0.0.1, not localhost.
        let mismatch = try ca.run(["resync", dump, "--work", dir.file("w2"), "--url", "https://localhost:\(server.port)/locs",
                                   "--max-attempts", "1", "--json"])
        #expect(try Self.summary(mismatch)["lastFailure"]?["message"]?.stringValue?
            .contains("certificate verify failed (hostname mismatch)") == true, "\(mismatch.stdout)")
        // https spoken to a plain http server.
        let plainServer = try ResyncIngestServer(dir)
        let plain = try ca.run(["resync", dump, "--work", dir.file("w3"), "--url", "https://127.0.0.1:\(plainServer.port)/locs",
                                "--max-attempts", "1", "--json"])
        #expect(try Self.summary(plain)["lastFailure"]?["message"]?.stringValue?.contains("TLS handshake with 127.0.0.1:\(plainServer.port) failed") == true,
                "\(plain.stdout)")
        #expect(plainServer.requests().isEmpty)
        #expect(server.requests().isEmpty)
        // And with everything right, it is delivered.
        let good = try ca.run(["resync", dump, "--work", dir.file("w4"), "--url", server.url("/locs"), "--json"])
        #expect(good.exitCode == 0 && server.delivered().count == 1, "\(good.stderr)")
    }

    // MARK: exit codes and signals

    @Test func logLaneExits3WhenLogRowsRemain() throws {
        let dir = TestDirectory("resync-logs-exit")
        let server = try ResyncIngestServer(dir, behaviour: ["paths": ["/logs": ["statuses": [503, 503, 503]]]])
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 4, config: [:], logs: 150)
        let stuck = try Self.resync(dump, dir, ["--logs", "--log-url", server.url("/logs"), "--max-attempts", "2"])
        #expect(stuck.exitCode == 3, "\(stuck.stdout)")
        #expect(stuck.stdout.contains("log rows:    0 uploaded this run, 150 remaining"), "\(stuck.stdout)")
        #expect(stuck.stdout.contains("records:     4 queued (not part of a --logs run)"))
        #expect(stuck.stdout.contains("to resume:   bgeo-forensics resync"))
        let done = try Self.resync(dump, dir, ["--logs", "--log-url", server.url("/logs"), "--json"])
        #expect(done.exitCode == 0, "\(done.stderr)")
        #expect(try Self.summary(done)["logsPending"] == .int(0) && Self.summary(done)["remaining"] == .int(4))
    }

    /// Starts resync in the background (stdout/stderr to files) for signal tests.
    static func start(_ arguments: [String], dir: TestDirectory, tag: String) throws -> (Process, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.executable)
        process.arguments = arguments
        let out = dir.file("\(tag).out"), err = dir.file("\(tag).err")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    static func waitFor(_ condition: () -> Bool, seconds: Double = 10) {
        let end = Date().addingTimeInterval(seconds)
        while !condition(), Date() < end { usleep(10_000) }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalDuringARequestAbandonsItJournalsItAndPrintsASummary(signal: Int32) throws {
        let dir = TestDirectory("resync-sigint")
        let server = try ResyncIngestServer(dir, behaviour: ["delay_ms": 8000])
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 3, config: [:])
        let (process, out, err) = try Self.start(["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs")],
                                                 dir: dir, tag: "run")
        Self.waitFor { server.requests().count == 1 }
        let sent = Date()
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let stdout = try String(contentsOfFile: out, encoding: .utf8)
        #expect(process.terminationReason == .exit && process.terminationStatus == 130, "\(stdout)")
        #expect(Date().timeIntervalSince(sent) < 4, "waited for the 8 s answer")
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(stdout.contains("interrupted by \(name); the request in flight was abandoned"), "\(stdout)")
        #expect(stdout.contains("delivered:   0 this run") && stdout.contains("remaining:   3"))
        #expect(stdout.contains("to resume:   bgeo-forensics resync \(dump) --work \(dir.file("work")) --url \(server.url("/locs"))"),
                "\(stdout)")
        _ = err
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT status, outcome, error FROM journal")
        #expect(try stmt.step() && stmt.int(0) == 0 && stmt.text(1) == "interrupted" && stmt.text(2)?.hasPrefix("interrupted: ") == true)
    }

    @Test func signalAfterAnAnswerOrDuringABackoffStopsAtOnceWithTheWorkCounted() throws {
        let dir = TestDirectory("resync-sigint-finish")
        // The in-flight request is answered within the grace: it is finished and counted.
        let quick = try ResyncIngestServer(dir, behaviour: ["delay_ms": 400])
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 5, config: [:])
        let (process, out, _) = try Self.start(["resync", dump, "--work", dir.file("work"), "--url", quick.url("/locs"), "--json"],
                                               dir: dir, tag: "finish")
        Self.waitFor { quick.requests().count == 2 }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let s = try JSONParser.parse(String(contentsOfFile: out, encoding: .utf8))
        #expect(s["interrupted"] == "SIGINT" && s["exitCode"] == .int(130))
        #expect(s["delivered"] == .int(2) && s["remaining"] == .int(3), "\(s)")
        #expect(quick.delivered().count == 2)
        // A 30 s backoff is cut short.
        let down = try ResyncIngestServer(dir, behaviour: ["default_status": 503])
        let (waiting, waitOut, _) = try Self.start(["resync", dump, "--work", dir.file("work2"), "--url", down.url("/locs"),
                                                    "--backoff-initial", "30s", "--max-attempts", "2"], dir: dir, tag: "backoff")
        Self.waitFor { down.requests().count == 1 }
        usleep(300_000)
        let sent = Date()
        kill(waiting.processIdentifier, SIGTERM)
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 130 && Date().timeIntervalSince(sent) < 3)
        let text = try String(contentsOfFile: waitOut, encoding: .utf8)
        #expect(text.contains("interrupted by SIGTERM; nothing is in flight") && text.contains("remaining:   5"), "\(text)")
    }

    // MARK: one runner per working copy

    @Test func twoRunsCreatingTheSameWorkingCopyNeverBothRun() throws {
        let dir = TestDirectory("resync-race")
        let server = try ResyncIngestServer(dir, behaviour: ["delay_ms": 150])
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: [:])
        for attempt in 1...20 {
            let work = dir.file("work-\(attempt)")
            let runs = try (0..<2).map { i in
                try Self.start(["resync", dump, "--work", work, "--url", server.url("/locs")], dir: dir, tag: "race-\(attempt)-\(i)")
            }
            for run in runs { run.0.waitUntilExit() }
            let codes = runs.map(\.0.terminationStatus).sorted()
            let errors = try runs.map { try String(contentsOfFile: $0.err, encoding: .utf8) }
            #expect(codes == [0, 2], "attempt \(attempt): exit codes \(codes)\n\(errors.joined(separator: "\n---\n"))")
            let loser = zip(runs, errors).first { $0.0.0.terminationStatus == 2 }?.1 ?? ""
            #expect(loser.contains("is in use by another resync run"), "attempt \(attempt): \(loser)")
        }
        // Each record delivered once per working copy: the loser sent nothing.
        #expect(server.delivered().count == 40)
    }

    // MARK: learned secrets stay redacted

    @Test func rotatedTokenEchoedByTheServerStaysRedactedInLaterCommands() throws {
        let dir = TestDirectory("resync-rotated-redaction")
        let rotated = "rotated-access-7f3e91c2"
        let server = try ResyncIngestServer(dir, behaviour: [
            "auth": ["paths": ["/locs"], "valid": ["first-access-1"], "expire_after": 1],
            "refresh": ["path": "/refresh", "issue": .array([.string(rotated)]), "refresh_token": "rotated-refresh-55aa"],
            "uuids": [ResyncEndToEndTests.uuid(3): ["always": 422, "echo_token": true]]])
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 3, config: [
            "authorization": ["accessToken": "first-access-1", "refreshToken": "first-refresh-1"]])
        let run = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--set", "authorization.refreshUrl=\(server.url("/refresh"))", "--json"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(server.requests().contains { $0.header("Authorization") == "Bearer \(rotated)" })
        do {
            let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
            let stmt = try db.prepare("SELECT response FROM quarantine")
            #expect(try stmt.step() && stmt.text(0)?.contains(rotated) == true)  // the server did echo it
        }
        let export = dir.file("q.ndjson")
        let listings = [
            try ToolRunner.run(["resync", dump, "--work", dir.file("work"), "--quarantine", "--json"]),
            try ToolRunner.run(["resync", dump, "--work", dir.file("work"), "--quarantine"]),
            try ToolRunner.run(["resync", dump, "--work", dir.file("work"), "--quarantine", "--export-quarantine", export]),
            try ToolRunner.run(["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs"), "--dry-run",
                                "--set", "authorization.refreshUrl=\(server.url("/refresh"))"]),
            run,
        ]
        for listing in listings {
            #expect(listing.exitCode == 0, "\(listing.stderr)")
            #expect(!listing.stdout.contains(rotated) && !listing.stderr.contains(rotated), "\(listing.stdout)")
            #expect(!listing.stdout.contains("rotated-refresh-55aa"))
        }
        #expect(listings[0].stdout.contains(Redactor.fingerprint(rotated)), "\(listings[0].stdout)")
        let exported = try String(contentsOfFile: export, encoding: .utf8)
        #expect(!exported.contains(rotated) && exported.contains(Redactor.fingerprint(rotated)), "\(exported)")
        // --show-secrets still shows it when asked.
        let shown = try ToolRunner.run(["resync", dump, "--work", dir.file("work"), "--quarantine", "--json", "--show-secrets"])
        #expect(shown.stdout.contains(rotated))
    }
}
