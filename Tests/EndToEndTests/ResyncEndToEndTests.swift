import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `resync` against a real HTTP server on 127.0.0.1, run as a user would run it.
@Suite(.serialized) struct ResyncEndToEndTests {
    static let apiKey = "ak_live_resync_4e5f6a"

    static func uuid(_ i: Int) -> String { "rs-\(String(format: "%04d", i))-8b41-4b8a-9e0a" }

    static func record(_ i: Int, extras: JSONValue? = ["fleetId": "own"]) -> JSONValue {
        var object: JSONObject = [
            "uuid": .string(uuid(i)), "timestamp": .string(Timestamp.format(1_784_880_000 + Double(i) * 10)),
            "odometer": .double(Double(i) * 10.5),
            "coords": ["latitude": .double(52.2297 + Double(i) / 1000), "longitude": 21.0122, "accuracy": 8.0,
                       "speed": 6.7, "heading": 184.2],
            "is_moving": i == 1 ? .null : true,
        ]
        if let extras { object["extras"] = extras }
        return .object(object)
    }

    /// A current-schema dump with `count` records and `config` in state.config.
    static func makeDump(_ dir: TestDirectory, count: Int, config: JSONValue, longping: Bool = false,
                         logs: Int = 0, auth: JSONValue? = nil) throws -> String {
        let path = dir.file(longping ? "queue.db" : "bgeo.db")
        let w = try DumpWriter(path: path, layout: longping ? .longping : .current)
        for i in 1...count { try w.insertRecord(record(i)) }
        if !longping {
            for i in 0..<logs {
                try w.insertLog(ts: Timestamp.format(1_784_880_000 + Double(i)), level: 1 + i % 5, event: "heartbeat",
                                message: "beat \(i)", data: ["n": .int(Int64(i))])
            }
            try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "old", data: nil as JSONValue?, uploaded: true)
            try w.setState("config", config)
            if let auth { try w.setState("auth", auth) }
        }
        try w.close()
        return path
    }

    static func resync(_ dump: String, _ dir: TestDirectory, _ extra: [String]) throws -> ToolResult {
        try ToolRunner.run(["resync", dump, "--work", dir.file("work"), "--backoff-initial", "0.01s", "--backoff-max", "0.05s"] + extra)
    }

    static func summary(_ result: ToolResult) throws -> JSONValue {
        try JSONParser.parse(result.stdout)
    }

    /// Without a terminal the last progress line was printed twice (issue 26).
    @Test func withoutATerminalNoProgressLineIsRepeated() throws {
        let dir = TestDirectory("resync-progress")
        // Long enough (> 2 s) for the plain lines' timer to print the last one before the end does.
        let dump = try Self.makeDump(dir, count: 60, config: [:])
        let server = try ResyncIngestServer(dir, behaviour: ["delay_ms": 45])
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs")])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let progress = result.stderr.split(separator: "\n").filter { $0.hasPrefix("locations: ") }
        #expect(!progress.isEmpty, "\(result.stderr)")
        let counts = progress.map { $0.split(separator: ",").prefix(4).joined(separator: ",") }
        for (a, b) in zip(counts, counts.dropFirst()) { #expect(a != b, "repeated: \(a)\n\(result.stderr)") }
    }

    // MARK: body shapes

    @Test func defaultSingleRecordBodyIsTheStoredRecordVerbatim() throws {
        let dir = TestDirectory("resync-single")
        let dump = try Self.makeDump(dir, count: 3, config: ["headers": ["X-Api-Key": .string(Self.apiKey)]])
        let server = try ResyncIngestServer(dir)
        let before = try EvidenceCopy.sha256(ofFile: dump)
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let seen = server.requests()
        #expect(seen.count == 3)
        for (i, request) in seen.enumerated() {
            #expect(request.method == "POST")
            #expect(request.header("Content-Type") == "application/json")
            #expect(request.header("X-Api-Key") == Self.apiKey)
            #expect(request.header("Authorization") == nil)
            #expect(request.body == #"{"location":"# + Self.record(i + 1).jsonText + "}")
        }
        #expect(try EvidenceCopy.sha256(ofFile: dump) == before)
        #expect(!result.stdout.contains(Self.apiKey))
        let s = try Self.summary(result)
        #expect(s["delivered"]?.intValue == 3 && s["remaining"]?.intValue == 0 && s["evidenceUnchanged"] == .bool(true))
    }

    @Test func walOnlyRowsAreSentAndNoEvidenceFileChanges() throws {
        let dir = TestDirectory("resync-wal")
        let dump = dir.file("bgeo.db")
        let w = try DumpWriter(path: dump, layout: .current, wal: true)
        for i in 1...3 { try w.insertRecord(Self.record(i)) }
        try w.checkpoint()
        for i in 4...6 { try w.insertRecord(Self.record(i)) }  // only in bgeo.db-wal
        try w.close(keepWAL: true)
        let files = [dump, dump + "-wal", dump + "-shm"].filter { FileManager.default.fileExists(atPath: $0) }
        #expect(files.count >= 2)
        let before = try files.map { try EvidenceCopy.sha256(ofFile: $0) }
        let server = try ResyncIngestServer(dir)
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(server.delivered() == (1...6).map(Self.uuid))
        #expect(try files.map { try EvidenceCopy.sha256(ofFile: $0) } == before)
        #expect(try Self.summary(result)["dumpSha256"]?.stringValue == before[0])
    }

    @Test func batchesParamsExtrasAndMethod() throws {
        let dir = TestDirectory("resync-batch")
        let dump = try Self.makeDump(dir, count: 5, config: [
            "batchSync": true, "maxBatchSize": 2, "method": "PATCH", "httpRootProperty": "points",
            "params": ["deviceId": "dev-882", "apiVersion": 2], "extras": ["fleetId": "cfg", "shift": "night"]])
        let server = try ResyncIngestServer(dir)
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs")])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let seen = server.requests()
        #expect(seen.map(\.method) == ["PATCH", "PATCH", "PATCH"])
        #expect(seen.map(\.uuids) == [[Self.uuid(1), Self.uuid(2)], [Self.uuid(3), Self.uuid(4)], [Self.uuid(5)]])
        let body = try #require(seen.first?.json)
        #expect(body.objectValue?.keys == ["deviceId", "apiVersion", "points"])
        #expect(body["apiVersion"] == .int(2))
        // extras merged into each record, the record's own key winning.
        #expect(body["points"]?.arrayValue?.first?["extras"] == ["fleetId": "own", "shift": "night"])
        #expect(body["points"]?.arrayValue?.first?["odometer"] == .double(10.5))
        // The last, lone record of a batching config is still an array.
        #expect(seen.last?.json?["points"]?.arrayValue?.count == 1)
    }

    @Test func dotRootAndOverridesFromTheCommandLine() throws {
        let dir = TestDirectory("resync-dot")
        let dump = try Self.makeDump(dir, count: 2, config: ["url": "https://never.example/x"])
        let server = try ResyncIngestServer(dir)
        let configFile = dir.file("override.json")
        try #"{"params":{"deviceId":"dev-1"}}"#.write(toFile: configFile, atomically: true, encoding: .utf8)
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--set", "httpRootProperty=.",
                                                 "--set", "method=PUT", "--config", configFile])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let seen = server.requests()
        #expect(seen.count == 2)
        let body = try #require(seen.first?.json)
        #expect(body["location"] == nil)
        #expect(body["uuid"] == .string(Self.uuid(1)))
        #expect(body["deviceId"] == "dev-1")
        #expect(body["is_moving"] == .null)
        #expect(seen.first?.method == "PUT")
    }

    // MARK: statuses

    @Test func everyStatusClassAndPoisonInsideABatch() throws {
        let dir = TestDirectory("resync-status")
        let dump = try Self.makeDump(dir, count: 12, config: ["batchSync": true, "maxBatchSize": 4])
        let behaviour: JSONValue = ["uuids": [
            Self.uuid(2): ["always": 422],   // poison inside the first batch
            Self.uuid(5): ["statuses": [500, 503]],
            Self.uuid(6): ["statuses": [429]],
            Self.uuid(9): ["always": 400], Self.uuid(10): ["always": 404],
            Self.uuid(11): ["always": 410], Self.uuid(12): ["always": 413],
        ]]
        let server = try ResyncIngestServer(dir, behaviour: behaviour)
        let before = try EvidenceCopy.sha256(ofFile: dump)
        let export = dir.file("quarantine.ndjson")
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--json", "--export-quarantine", export])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let poison: Set<String> = Set([2, 9, 10, 11, 12].map(Self.uuid))
        let expected = Set((1...12).map(Self.uuid)).subtracting(poison)
        #expect(Set(server.delivered()) == expected)
        #expect(server.delivered().count == expected.count)  // each delivered exactly once
        // The poisoned first batch of 4 went once, then one record at a time.
        #expect(server.requests().prefix(5).map(\.uuids.count) == [4, 1, 1, 1, 1])
        let s = try Self.summary(result)
        let quarantined = s["quarantined"]?.arrayValue ?? []
        #expect(Set(quarantined.compactMap { $0["uuid"]?.stringValue }) == poison)
        #expect(quarantined.first { $0["uuid"] == .string(Self.uuid(12)) }?["status"] == .int(413))
        let lines = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { (try? JSONParser.parse(String($0)))?["record"]?["coords"] != nil })
        // A later listing of the working copy shows the same quarantine.
        let listing = try ToolRunner.run(["resync", dump, "--work", dir.file("work"), "--quarantine", "--json"])
        #expect(listing.exitCode == 0)
        #expect(Set(((try? JSONParser.parse(listing.stdout))?.arrayValue ?? []).compactMap { $0["uuid"]?.stringValue }) == poison)
        #expect(try EvidenceCopy.sha256(ofFile: dump) == before)
        // Journal: every request and response, onHttp-style.
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT count(*), sum(status = 429), sum(status >= 500) FROM journal WHERE lane = 'locations'")
        #expect(try stmt.step())
        #expect(stmt.int(0) == server.requests().count && stmt.int(1) == 1 && stmt.int(2) == 2)
    }

    @Test func retryAfterWinsForLongPing() throws {
        let dir = TestDirectory("resync-retry-after")
        let dump = try Self.makeDump(dir, count: 2, config: [:], longping: true)
        let server = try ResyncIngestServer(dir, behaviour: [
            "uuids": [Self.uuid(1): ["statuses": [429]]], "retry_after": ["/locs": "1"]])
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let seen = server.requests()
        #expect(seen.map(\.status) == [429, 200, 200])
        #expect(seen.count == 3 && seen[1].time - seen[0].time >= 0.9)  // waited Retry-After, not 0.01 s
        #expect(try Self.summary(result)["policy"] == "longping")
    }

    @Test func recordsRemainExit3WhenAttemptsRunOut() throws {
        let dir = TestDirectory("resync-exit3")
        let dump = try Self.makeDump(dir, count: 3, config: [:])
        let server = try ResyncIngestServer(dir, behaviour: ["default_status": 503])
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--max-attempts", "3", "--json"])
        #expect(result.exitCode == 3)
        #expect(server.requests().count == 3)
        #expect(try Self.summary(result)["remaining"] == .int(3))
    }

    // MARK: authorization

    @Test func tokenExpiresMidRunAndRefreshesWithNestedRenamedKeys() throws {
        let dir = TestDirectory("resync-refresh")
        let dump = try Self.makeDump(dir, count: 5, config: [
            "headers": ["X-Api-Key": .string(Self.apiKey)],
            "authorization": ["strategy": "JWT", "accessToken": "config-access-0", "refreshToken": "config-refresh-0"]],
            auth: ["accessToken": "state-access-1", "refreshToken": "state-refresh-1"])
        let server = try ResyncIngestServer(dir, behaviour: [
            "auth": ["paths": ["/locs"], "valid": ["state-access-1"], "expire_after": 2],
            "refresh": ["path": "/auth/refresh", "shape": "nested", "issue": ["rotated-access-2"], "refresh_token": "rotated-refresh-2"]])
        let result = try Self.resync(dump, dir, [
            "--url", server.url("/locs"), "--set", "authorization.refreshUrl=\(server.url("/auth/refresh"))",
            "--set", #"authorization.refreshPayload={"grant":"refresh","rt":"{refreshToken}"}"#,
            "--set", #"authorization.refreshHeaders={"X-Refresh-Key":"rk-1"}"#, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(Set(server.delivered()) == Set((1...5).map(Self.uuid)))
        let seen = server.requests()
        let refreshes = seen.filter { $0.path == "/auth/refresh" }
        #expect(refreshes.count == 1)
        #expect(refreshes.first?.json == ["grant": "refresh", "rt": "state-refresh-1"])
        #expect(refreshes.first?.header("X-Refresh-Key") == "rk-1")
        // 2 accepted, the 3rd 401, refresh, the same record again with the new token.
        #expect(seen.map(\.status) == [200, 200, 401, 200, 200, 200, 200])
        #expect(seen[2].uuids == seen[4].uuids)
        #expect(seen[4].header("Authorization") == "Bearer rotated-access-2")
        let s = try Self.summary(result)
        #expect(s["refreshes"] == .int(1))
        #expect(s["auth"]?["accessToken"] == .string(TokenFingerprint("rotated-access-2").fingerprint))
        for secret in ["rotated-access-2", "rotated-refresh-2", "state-refresh-1", Self.apiKey] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        }
        // The rotated pair is kept in the working copy: a second run starts with it.
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT value FROM auth WHERE key = 'refreshToken'")
        #expect(try stmt.step() && stmt.text(0) == "rotated-refresh-2")
    }

    @Test func refreshThatFailsIsARetryWithBackoffThenRenamedKeys() throws {
        let dir = TestDirectory("resync-refresh-fail")
        let dump = try Self.makeDump(dir, count: 2, config: [
            "batchSync": true,
            "authorization": ["accessToken": "expired-access", "refreshToken": "refresh-abc", "refreshUrl": "http://127.0.0.1:1/unused"]])
        let server = try ResyncIngestServer(dir, behaviour: [
            "auth": ["paths": ["/locs"], "valid": []],
            "refresh": ["path": "/refresh", "statuses": [500], "shape": "renamed", "issue": ["renamed-access-9"]]])
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--set", "authorization.refreshUrl=\(server.url("/refresh"))", "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let seen = server.requests()
        #expect(seen.map(\.path) == ["/locs", "/refresh", "/locs", "/refresh", "/locs"])
        #expect(seen.map(\.status) == [401, 500, 401, 200, 200])
        #expect(seen.last?.header("Authorization") == "Bearer renamed-access-9")
        #expect(seen.filter { $0.path == "/refresh" }.allSatisfy { $0.json == ["refresh_token": "refresh-abc"] })
        let s = try Self.summary(result)
        #expect(s["refreshes"] == .int(2) && s["failedRefreshes"] == .int(1) && s["delivered"] == .int(2))
        // The kept refresh token (none rotated) stays the old one.
        #expect(s["auth"]?["refreshToken"] == .string(TokenFingerprint("refresh-abc").fingerprint))
    }

    @Test func chunkedResponsesAreReadOnAKeptAliveConnection() throws {
        let dir = TestDirectory("resync-chunked")
        let dump = try Self.makeDump(dir, count: 4, config: [
            "authorization": ["accessToken": "chunk-access-1", "refreshToken": "chunk-refresh-1"]])
        let server = try ResyncIngestServer(dir, behaviour: [
            "chunked": true, "auth": ["paths": ["/locs"], "valid": []],
            "refresh": ["path": "/refresh", "shape": "plain", "issue": ["chunk-access-2"], "refresh_token": "chunk-refresh-2"]])
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--set", "authorization.refreshUrl=\(server.url("/refresh"))", "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(server.delivered() == (1...4).map(Self.uuid))
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT response FROM journal WHERE lane = 'locations' AND status = 200 LIMIT 1")
        #expect(try stmt.step() && stmt.text(0) == #"{"ok": true, "status": 200}"#)
        let auth = try db.prepare("SELECT value FROM auth WHERE key = 'refreshToken'")
        #expect(try auth.step() && auth.text(0) == "chunk-refresh-2")
    }

    // MARK: failures of the transport and of the process

    @Test func connectionDroppedMidRequestIsRetried() throws {
        let dir = TestDirectory("resync-drop")
        let dump = try Self.makeDump(dir, count: 3, config: [:])
        let server = try ResyncIngestServer(dir, behaviour: ["uuids": [Self.uuid(2): ["drop": 1]]])
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(server.delivered() == (1...3).map(Self.uuid))
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT status, uuids, outcome FROM journal ORDER BY id")
        var rows: [(Int, String, String)] = []
        while try stmt.step() { rows.append((stmt.int(0), stmt.text(1) ?? "", stmt.text(2) ?? "")) }
        #expect(rows.map(\.0) == [200, 0, 200, 200])
        #expect(rows[1].1.contains(Self.uuid(2)) && rows[1].2 == "retry")
    }

    @Test func kill9MidRunThenResumeLosesNothing() throws {
        let dir = TestDirectory("resync-kill")
        let count = 40
        let dump = try Self.makeDump(dir, count: count, config: ["batchSync": true, "maxBatchSize": 2])
        let server = try ResyncIngestServer(dir, behaviour: ["delay_ms": 40, "uuids": [Self.uuid(33): ["always": 422]]])
        let before = try EvidenceCopy.sha256(ofFile: dump)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.executable)
        process.arguments = ["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs"), "--backoff-initial", "0.01s"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var waited = 0
        while server.requests().count < 6, waited < 400 {
            usleep(10_000)
            waited += 1
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let firstRun = server.requests().count
        #expect(firstRun >= 6 && firstRun < count / 2)
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let delivered = server.delivered()
        let expected = Set((1...count).map(Self.uuid)).subtracting([Self.uuid(33)])
        #expect(Set(delivered) == expected)
        // At most the batch in flight is sent twice.
        #expect(delivered.count - expected.count <= 2)
        let s = try Self.summary(result)
        #expect(s["quarantined"]?.arrayValue?.compactMap { $0["uuid"]?.stringValue } == [Self.uuid(33)])
        #expect(try EvidenceCopy.sha256(ofFile: dump) == before)
    }

    // MARK: operator experience

    @Test func dryRunSendsNothingAndRedacts() throws {
        let dir = TestDirectory("resync-dry")
        let access = "dry-access-token-77"
        let dump = try Self.makeDump(dir, count: 4, config: [
            "batchSync": true, "maxBatchSize": 3, "headers": ["X-Api-Key": .string(Self.apiKey)],
            "authorization": ["accessToken": .string(access)]])
        let server = try ResyncIngestServer(dir)
        let result = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--dry-run"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(server.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("work")))
        #expect(result.stdout.contains("POST \(server.url("/locs"))"))
        #expect(result.stdout.contains("Authorization: Bearer ‹redacted sha256:"))
        #expect(result.stdout.contains("X-Api-Key: ‹redacted sha256:"))
        #expect(!result.stdout.contains(access) && !result.stdout.contains(Self.apiKey))
        #expect(result.stdout.contains(Self.record(1).jsonText))
        #expect(result.stdout.components(separatedBy: "--- request").count == 3)
        let shown = try Self.resync(dump, dir, ["--url", server.url("/locs"), "--dry-run", "--show-secrets"])
        #expect(shown.stdout.contains("Bearer \(access)"))
    }

    @Test func logLaneUploadsPendingRowsInBatchesOf100() throws {
        let dir = TestDirectory("resync-logs")
        let dump = try Self.makeDump(dir, count: 1, config: ["logUrl": "https://never.example/logs"], logs: 150)
        let server = try ResyncIngestServer(dir, behaviour: ["paths": ["/logs": ["statuses": [503]]]])
        let result = try Self.resync(dump, dir, ["--logs", "--log-url", server.url("/logs"), "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let seen = server.requests()
        #expect(seen.map(\.status) == [503, 200, 200])
        let events = seen.compactMap { $0.json?["events"]?.arrayValue }
        #expect(events.map(\.count) == [100, 100, 50])
        #expect(events[1].first == ["ts": .string(Timestamp.format(1_784_880_000)), "level": "error", "src": "native",
                                    "event": "heartbeat", "message": "beat 0", "data": ["n": 0]])
        #expect(events[2].allSatisfy { $0["event"] == "heartbeat" })  // the already-uploaded row is not re-sent
        #expect(try Self.summary(result)["logsUploaded"] == .int(150))
    }

    @Test func badInputExits2() throws {
        let dir = TestDirectory("resync-bad")
        let notADump = dir.file("notes.txt")
        try "hello".write(toFile: notADump, atomically: true, encoding: .utf8)
        #expect(try ToolRunner.run(["resync", notADump, "--url", "http://127.0.0.1:9/x"]).exitCode == 2)
        let dump = try Self.makeDump(dir, count: 1, config: [:])
        let noURL = try ToolRunner.run(["resync", dump, "--work", dir.file("w")])
        #expect(noURL.exitCode == 2 && noURL.stderr.contains("--url"))
        #expect(try ToolRunner.run(["resync", dump, "--url", "ftp://x/y"]).exitCode == 2)
        #expect(try ToolRunner.run(["resync", dump, "--url", "http://h/x", "--set", "method=DELETE", "--work", dir.file("w")]).exitCode == 2)
        #expect(try ToolRunner.run(["resync", dump, "--url", "http://h/x", "--backoff-initial", "soon"]).exitCode == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.file("w")))
    }
}
