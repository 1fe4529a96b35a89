import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Regression (stop 48), from dumps shaped unlike the bench's: a queue record whose `extras` held
/// 100,000 keys took `locations` 17 s on a 13 MB dump, and a `config` line with 200,000 keys took
/// `logs` 72 s (release builds): the redactor copied each object key by key through a look-up
/// along the keys already copied. Both are listed whole, redacted, in linear time now.
@Suite struct WideObjectTests {
    static let keys = 150_000

    static func dump(_ dir: TestDirectory) throws -> String {
        try Hostile.dump(at: dir.file("bgeo.db"), records: 0) { w in
            try w.begin()
            for i in 0..<6 {
                var record = Hostile.record(i).objectValue!
                if i == 3 {
                    record["extras"] = .object(JSONObject((0..<WideObjectTests.keys).map { (key: "k\($0)", value: JSONValue.int(Int64($0))) }))
                }
                try w.insertRecord(.object(record))
            }
            try w.commit()
            var config = (0..<WideObjectTests.keys).map { (key: "opt\($0)", value: JSONValue.string("v\($0)")) }
            config.append((key: "apiToken", value: .string("wide-object-secret-0001")))
            try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "config", data: .object(JSONObject(config)))
        }
    }

    /// Runs `command` on a new wide dump in `folder`; expects exit 0 within the bound.
    static func listed(_ command: String, in folder: String) throws -> String {
        let dir = TestDirectory(folder)  // kept until the command has run: removed when released
        let dump = try WideObjectTests.dump(dir)
        let started = Date()
        let result = try Hostile.run([command, dump, "--format", "ndjson"])
        let seconds = Date().timeIntervalSince(started)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(seconds < 20, "\(command) took \(seconds) s")
        withExtendedLifetime(dir) {}
        return result.stdout
    }

    @Test func aRecordWithWideExtrasIsListedWholeInLinearTime() throws {
        let stdout = try WideObjectTests.listed("locations", in: "wide-record")
        let wide = stdout.split(separator: "\n").first { $0.contains(#""k0":0"#) }
        let extras = try wide.flatMap { try JSONParser.parse(String($0))["record"]?["extras"]?.objectValue }
        #expect(extras?.count == WideObjectTests.keys)
        #expect(extras?["k\(WideObjectTests.keys - 1)"] == .int(Int64(WideObjectTests.keys - 1)))
    }

    @Test func aConfigLineWithWideDataIsListedWholeAndRedactedInLinearTime() throws {
        let stdout = try WideObjectTests.listed("logs", in: "wide-config")
        #expect(!stdout.contains("wide-object-secret-0001"))
        let line = stdout.split(separator: "\n").first { $0.contains(#""event":"config""#) }
        let data = try line.flatMap { try JSONParser.parse(String($0))["data"]?.objectValue }
        #expect(data?.count == WideObjectTests.keys + 1)
        #expect(data?["opt\(WideObjectTests.keys - 1)"] == .string("v\(WideObjectTests.keys - 1)"))
    }
}
