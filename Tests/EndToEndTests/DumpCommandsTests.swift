import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `inspect`, `locations`, `logs` run as a user would, on real dumps.
@Suite struct DumpCommandsTests {
    private static let accessToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYiLCJleHAiOjE3ODQ4ODAwMDB9.c2lnLXNlY3JldC12YWx1ZQ"
    private static let refreshToken = "rt-secret-0f9e8d7c6b5a"
    private static let apiKey = "ak_live_5c4b3a29e8f7"

    /// A current-schema dump with secrets in state.config, state.auth and a config log line,
    /// and a hostile extras string.
    private static func makeDump(in dir: TestDirectory) throws -> String {
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current, wal: true)
        let config: JSONValue = ["url": "https://ingest.example/l", "headers": ["X-Api-Key": .string(apiKey)],
                                 "authorization": ["strategy": "JWT", "accessToken": .string(accessToken),
                                                   "refreshToken": .string(refreshToken), "refreshUrl": "https://ingest.example/r"]]
        for i in 1...4 {
            let ts = Timestamp.format(1_784_880_000 + Double(i) * 60)
            try w.insertRecord(["uuid": .string("uuid-\(i)"), "timestamp": .string(ts),
                                "coords": ["latitude": .double(52 + Double(i) / 100), "longitude": 21, "accuracy": 5],
                                "extras": ["note": "<script>alert('x')</script>"]])
        }
        try w.insertLog(ts: "2026-07-24T09:00:00Z", level: 3, event: "config", data: config)
        try w.insertLog(ts: "2026-07-24T09:00:01Z", level: 1, event: "auth.refresh.result", data: ["success": false, "status": 400])
        try w.insertLog(ts: "2026-07-24T09:00:02Z", level: 3, event: "http.response",
                        data: .object(["status": 401, "response": .string("token \(accessToken) expired")]))
        try w.setState("config", config)
        try w.setState("auth", ["accessToken": .string(accessToken), "refreshToken": .string(refreshToken)])
        try w.close(keepWAL: true)
        return path
    }

    private static func hashes(_ path: String) throws -> [String] {
        try [path, path + "-wal", path + "-shm"].filter { FileManager.default.fileExists(atPath: $0) }.map { try EvidenceCopy.sha256(ofFile: $0) }
    }

    private static func assertNoSecrets(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in [accessToken, refreshToken, apiKey] {
            #expect(!text.contains(secret), "secret leaked", sourceLocation: sourceLocation)
        }
    }

    // MARK: inspect

    @Test func inspectJSONCarriesTheContractKeys() throws {
        let dir = TestDirectory("inspect")
        let path = try Self.makeDump(in: dir)
        let before = try Self.hashes(path)
        let result = try ToolRunner.run(["inspect", path, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        #expect(json["format"] == "bgeo")
        #expect(json["schemaVersion"] == 3)
        let inputs = try #require(json["inputs"]?.arrayValue)
        #expect(inputs.count == 3)  // db, -wal, -shm
        #expect(inputs.compactMap { $0["sha256"]?.stringValue } == before)
        #expect(json.value(atPath: "queue.count") == 4)
        #expect(json.value(atPath: "queue.locations") == 4)
        #expect(json.value(atPath: "queue.geofences") == 0)
        #expect(json.value(atPath: "queue.oldest") == .string(Timestamp.format(1_784_880_060)))
        #expect(json.value(atPath: "log.count") == 3)
        #expect(json.value(atPath: "log.byLevel.error") == 1)
        #expect(json.value(atPath: "log.pendingUpload") == 3)
        #expect(json.value(atPath: "state.auth.accessToken.exp") == "2026-07-24T08:00:00Z")
        #expect(json.value(atPath: "state.auth.accessToken.expiredAtDump") == true)
        #expect(json["warnings"]?.arrayValue?.isEmpty == true)
        Self.assertNoSecrets(result.stdout + result.stderr)
        #expect(try Self.hashes(path) == before)
    }

    @Test func inspectTextIsRedactedUnlessAsked() throws {
        let dir = TestDirectory("inspect-text")
        let path = try Self.makeDump(in: dir)
        let plain = try ToolRunner.run(["inspect", path])
        #expect(plain.exitCode == 0)
        #expect(plain.stdout.contains("EXPIRED"))
        Self.assertNoSecrets(plain.stdout + plain.stderr)
        let clear = try ToolRunner.run(["inspect", path, "--json", "--show-secrets"])
        #expect(clear.stdout.contains(Self.apiKey))
    }

    @Test(arguments: ["", "PK\u{3}\u{4}zipzipzip", "just some notes\n"])
    func notADatabaseExitsTwoWithOneSentence(_ content: String) throws {
        let dir = TestDirectory("notdb")
        let path = dir.file("bgeo.db")
        _ = FileManager.default.createFile(atPath: path, contents: Data(content.utf8))
        for command in ["inspect", "locations", "logs"] {
            let result = try ToolRunner.run([command, path])
            #expect(result.exitCode == 2)
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(path))
        }
    }

    /// The inputs are hashed on a second thread while the copy is read: a command that stops at
    /// once (a file that is not a database) must still exit cleanly — not crash because the
    /// process tore OpenSSL down while the hashing thread was using it. Repeated: it was a race.
    @Test func quickExitWhileHashingIsClean() throws {
        let dir = TestDirectory("notdb-race")
        let path = dir.file("notes.db")
        _ = FileManager.default.createFile(atPath: path, contents: Data("not a database\n".utf8))
        for round in 0..<8 {
            for command in ["inspect", "timeline", "report"] {
                let result = try ToolRunner.run([command, path])
                #expect(result.exitCode == 2, "\(command) round \(round): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(command) round \(round): \(result.stderr)")
            }
        }
    }

    @Test func missingFileAndUsageErrorsExitTwo() throws {
        #expect(try ToolRunner.run(["inspect", "/nonexistent/bgeo.db"]).exitCode == 2)
        #expect(try ToolRunner.run(["inspect"]).exitCode == 2)
        #expect(try ToolRunner.run(["locations", "x.db", "--limit", "lots"]).exitCode == 2)
        #expect(try ToolRunner.run(["frobnicate"]).exitCode == 2)
    }

    @Test(arguments: ["inspect", "locations", "logs", "replay", "timeline", "report", "gpx", "resync", "simulate"])
    func everyCommandHasHelp(_ command: String) throws {
        let result = try ToolRunner.run([command, "--help"])
        #expect(result.exitCode == 0)
        #expect(result.stdout.contains("Usage: bgeo-forensics \(command)"))
    }

    // MARK: locations

    @Test func locationsInDrainOrderInEveryFormat() throws {
        let dir = TestDirectory("locations")
        let path = try Self.makeDump(in: dir)
        let before = try Self.hashes(path)
        let ndjson = try ToolRunner.run(["locations", path, "--format", "ndjson"])
        let lines = ndjson.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        let first = try JSONParser.parse(String(lines[0]))
        #expect(first.value(atPath: "record.uuid") == "uuid-1")
        #expect(first.value(atPath: "record.extras.note") == "<script>alert('x')</script>")
        let csv = try ToolRunner.run(["locations", path, "--format", "csv", "--since", "2026-07-24T08:02:00Z", "--limit", "2"])
        let csvLines = csv.stdout.split(separator: "\n")
        #expect(csvLines.first?.hasPrefix("id,uuid,timestamp") == true)
        #expect(csvLines.count == 3)
        #expect(csvLines[1].contains("uuid-2"))
        let json = try JSONParser.parse(try ToolRunner.run(["locations", path, "--json", "--uuid", "uuid-3"]).stdout)
        #expect(json.arrayValue?.count == 1)
        let table = try ToolRunner.run(["locations", path])
        #expect(table.stdout.contains("uuid-4"))
        #expect(try Self.hashes(path) == before)
    }

    // MARK: logs

    @Test func logsNewestFirstFilteredAndRedacted() throws {
        let dir = TestDirectory("logs")
        let path = try Self.makeDump(in: dir)
        let before = try Self.hashes(path)
        let all = try JSONParser.parse(try ToolRunner.run(["logs", path, "--json"]).stdout)
        #expect(all.arrayValue?.compactMap { $0["id"]?.intValue } == [3, 2, 1])
        let errors = try JSONParser.parse(try ToolRunner.run(["logs", path, "--json", "--level", "error"]).stdout)
        #expect(errors.arrayValue?.compactMap { $0["event"]?.stringValue } == ["auth.refresh.result"])
        let grep = try JSONParser.parse(try ToolRunner.run(["logs", path, "--json", "--grep", "EXPIRED"]).stdout)
        #expect(grep.arrayValue?.count == 1)
        let events = try JSONParser.parse(try ToolRunner.run(["logs", path, "--json", "--event", "auth.*", "--limit", "5"]).stdout)
        #expect(events.arrayValue?.count == 1)
        for format in ["table", "csv", "ndjson", "json"] {
            let result = try ToolRunner.run(["logs", path, "--format", format])
            #expect(result.exitCode == 0)
            Self.assertNoSecrets(result.stdout + result.stderr)
        }
        #expect(try Self.hashes(path) == before)
    }
}
