import BGeoForensics
import Foundation
import Testing

/// `bgeo-forensics replay` as a user runs it, on real SQLite dumps.
@Suite struct ReplayTests {
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    static let t0 = 1_785_000_000.0

    /// A 20-fix walk north (100 m / 10 s, recorded odometer 0 → 1900) with one planted teleport
    /// (`tp-1`, 30 km away), one 300 m-accuracy fix (`bad-acc`), a location log line for `w-0`
    /// carrying raw_*, and one geofence record. `config` nil: no state.config.
    static func writeDump(_ path: String, config: JSONValue? = ["locationFilterPolicy": "Conservative",
                                                                   "authorization": ["accessToken": "tok-SECRET-123"]]) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        if let config { try w.setState("config", config) }
        func record(_ uuid: String, _ s: Double, _ lat: Double, accuracy: Double, odometer: Double?) -> JSONValue {
            var o: JSONObject = ["uuid": .string(uuid), "timestamp": .string(Timestamp.format(t0 + s))]
            if let odometer { o["odometer"] = .double(odometer) }
            o["coords"] = ["latitude": .double(lat), "longitude": 21.0, "accuracy": .double(accuracy)]
            return .object(o)
        }
        for i in 0..<20 {
            try w.insertRecord(record("w-\(i)", Double(10 * i), 52 + Double(i) * 100 / metresPerDegree, accuracy: 8,
                                      odometer: Double(100 * i)))
        }
        try w.insertRecord(record("tp-1", 65, 52.3, accuracy: 8, odometer: nil))
        try w.insertRecord(record("bad-acc", 125, 52.01, accuracy: 300, odometer: nil))
        try w.insertRecord(["uuid": "gf-1", "timestamp": .string(Timestamp.format(t0 + 30)),
                            "coords": ["latitude": 52.0, "longitude": 21.0], "geofence": ["identifier": "depot", "action": "EXIT"]])
        try w.insertLog(ts: Timestamp.format(t0), level: 4, event: "location", data: [
            "uuid": "w-0", "timestamp": .string(Timestamp.format(t0)), "latitude": 52.0, "longitude": 21.0, "accuracy": 8.0,
            "raw_latitude": 52.0, "raw_longitude": 21.00002, "odometer": 0.0,
        ])
        try w.close()
    }

    static func sha256(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var hasher = SHA256Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }

    @Test func humanSummaryNamesSourceCountsOdometerAndDiagnosis() throws {
        let dir = TestDirectory("replay-text")
        let path = dir.file("bgeo.db")
        try Self.writeDump(path)
        let before = try Self.sha256(path)
        let r = try ToolRunner.run(["replay", path])
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(r.stdout.contains("from state.config"))
        #expect(r.stdout.contains("accepted") && r.stdout.contains("teleport"))
        #expect(r.stdout.contains("Top contributors"))
        #expect(r.stdout.contains("Diagnosis"))
        #expect(r.stdout.contains("tp-1"))  // named as the rejected teleport
        #expect(r.stdout.contains("1 geofence event"))
        #expect(!r.stdout.contains("tok-SECRET-123"))
        #expect(try Self.sha256(path) == before)  // evidence untouched
    }

    @Test func jsonIsByteIdenticalAcrossRunsAndCountsArePlanted() throws {
        let dir = TestDirectory("replay-json")
        let path = dir.file("bgeo.db")
        try Self.writeDump(path)
        let a = try ToolRunner.run(["replay", path, "--json", "--fixes"])
        let b = try ToolRunner.run(["replay", path, "--json", "--fixes"])
        #expect(a.exitCode == 0, "\(a.stderr)")
        #expect(a.stdout == b.stdout)
        let json = try JSONParser.parse(a.stdout)
        #expect(json["fixes"] == .int(22))
        #expect(json["accepted"] == .int(20))
        #expect(json["rejected"]?["teleport"] == .int(1))
        #expect(json["rejected"]?["accuracy"] == .int(1))
        #expect(json["configSource"] == .string("state.config"))
        #expect(json["config"]?["locationFilterPolicy"] == .string("Conservative"))
        #expect(json["odometer"]?["recorded"] == .double(1900))
        #expect(json["trace"]?["duplicates"] == .int(1))
        let decisions = try #require(json["decisions"]?.arrayValue)
        #expect(decisions.count == 22)
        // raw_* won for w-0: the first fix is output where the raw line put it.
        #expect(decisions.first?["uuid"] == .string("w-0"))
        #expect(decisions.first?["longitude"] == .double(21.00002))
        let teleport = try #require(decisions.first { $0["uuid"] == .string("tp-1") })
        #expect(teleport["decision"] == .string("rejected") && teleport["reason"] == .string("teleport"))
        #expect(!a.stdout.contains("tok-SECRET-123"))
    }

    @Test func compareListsTheFixesWhoseDecisionChanges() throws {
        let dir = TestDirectory("replay-compare")
        let path = dir.file("bgeo.db")
        try Self.writeDump(path)
        let r = try ToolRunner.run(["replay", path, "--compare", "--set", "locationfilterpolicy=PassThrough", "--json"])
        #expect(r.exitCode == 0, "\(r.stderr)")
        let json = try JSONParser.parse(r.stdout)
        let differences = try #require(json["compare"]?["differences"]?.arrayValue)
        #expect(differences.map { $0["uuid"] } == [.string("tp-1")])
        #expect(json["compare"]?["whatIf"]?["config"]?["locationFilterPolicy"] == .string("PassThrough"))
        #expect(json["compare"]?["recorded"]?["config"]?["locationFilterPolicy"] == .string("Conservative"))
        let text = try ToolRunner.run(["replay", path, "--compare", "--set", "locationFilterMaxSpeed=10000"])
        #expect(text.exitCode == 0)
        #expect(text.stdout.contains("what-if") && text.stdout.contains("1 fix change decision"))
    }

    @Test func configFileAndDefaultsAndUsageErrors() throws {
        let dir = TestDirectory("replay-config")
        let path = dir.file("bare.db")
        try Self.writeDump(path, config: nil)
        let r = try ToolRunner.run(["replay", path])
        #expect(r.exitCode == 0)
        #expect(r.stdout.contains("engine defaults"))
        let file = dir.file("whatif.json")
        try Data(#"{"locationFilterMaxAccuracy": 500, "locationFilterPolicy": "passthrough"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let withFile = try JSONParser.parse(try ToolRunner.run(["replay", path, "--config", file, "--json"]).stdout)
        #expect(withFile["rejected"]?["total"] == .int(0))
        #expect(withFile["configSource"]?.stringValue?.contains("--config whatif.json") == true)
        for bad in [["--set", "locationFilterMaxSpeed=fast"], ["--set", "url=x"], ["--compare"], ["--top", "-1"]] {
            let e = try ToolRunner.run(["replay", path] + bad)
            #expect(e.exitCode == 2, "\(bad)")
            #expect(!e.stderr.isEmpty)
        }
        let notADump = dir.file("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notADump))
        #expect(try ToolRunner.run(["replay", notADump]).exitCode == 2)
        let help = try ToolRunner.run(["replay", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--compare") && help.stdout.contains("--set"))
    }
}
