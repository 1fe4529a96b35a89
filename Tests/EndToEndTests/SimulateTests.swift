import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `simulate` run as a user would; the committed Samples/ must be exactly what it regenerates.
@Suite struct SimulateTests {
    /// The repository's Samples/ folder (this file is Tests/EndToEndTests/SimulateTests.swift).
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples").path

    @Test func regeneratingAllSamplesGivesTheCommittedBytes() throws {
        let dir = TestDirectory("simulate-all")
        let result = try ToolRunner.run(["simulate", "--all", "-o", dir.path])
        #expect(result.exitCode == 0, "\(result.stderr)")
        var expected = Scenario.allCases.map { $0.rawValue + ".db" }
        expected.append("wal-mode.db-wal")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(written == expected.sorted())
        for name in expected {
            let committed = SimulateTests.samples + "/" + name
            #expect(FileManager.default.fileExists(atPath: committed), "Samples/\(name) is missing")
            guard FileManager.default.fileExists(atPath: committed) else { continue }
            #expect(try EvidenceCopy.sha256(ofFile: dir.file(name)) == EvidenceCopy.sha256(ofFile: committed),
                    "Samples/\(name) differs from a fresh `simulate --all`; regenerate and commit it")
        }
    }

    @Test func listNamesEveryScenario() throws {
        let text = try ToolRunner.run(["simulate", "--list"])
        #expect(text.exitCode == 0)
        for scenario in Scenario.allCases { #expect(text.stdout.contains(scenario.rawValue + " ")) }
        let json = try ToolRunner.run(["simulate", "--list", "--json"])
        let parsed = try JSONParser.parse(json.stdout)
        #expect(parsed.arrayValue?.count == Scenario.allCases.count)
    }

    @Test func oneScenarioWithJSONSummaryMatchesInspect() throws {
        let dir = TestDirectory("simulate-one")
        let path = dir.file("stranded.db")
        let result = try ToolRunner.run(["simulate", "--scenario", "stranded-refresh", "-o", path, "--seed", "11", "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let summary = try JSONParser.parse(result.stdout)
        #expect(summary["scenario"]?.stringValue == "stranded-refresh")
        #expect(summary["seed"]?.intValue == 11)
        let queued = try #require(summary["queue_records"]?.intValue)
        #expect(queued >= 300)
        let inspect = try ToolRunner.run(["inspect", path, "--json"])
        #expect(inspect.exitCode == 0)
        #expect(inspect.stdout.contains("\(queued)"))
        // Secrets of the simulated config stay redacted in the reader's output.
        #expect(!inspect.stdout.contains("sk_live_"))
    }

    @Test func scaledScenarioAndLargeShape() throws {
        let dir = TestDirectory("simulate-scaled")
        let result = try ToolRunner.run(["simulate", "--records", "2500", "-o", dir.file("large.db"), "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let summary = try JSONParser.parse(result.stdout)
        #expect(summary["queue_records"]?.intValue == 2500)
        let scaled = try ToolRunner.run(["simulate", "--scenario", "teleports", "--records", "1500", "-o", dir.file("t.db"), "--json"])
        let teleports = try JSONParser.parse(scaled.stdout)
        #expect(teleports["accepted_fixes"]?.intValue == 1500)
        #expect((teleports["planted_teleports"]?.intValue ?? 0) >= 12)
    }

    @Test func badUsageExitsTwo() throws {
        let dir = TestDirectory("simulate-usage")
        let unknown = try ToolRunner.run(["simulate", "--scenario", "nope", "-o", dir.file("x.db")])
        #expect(unknown.exitCode == 2)
        #expect(unknown.stderr.contains("simulate --list"))
        let noOutput = try ToolRunner.run(["simulate", "--scenario", "healthy-day"])
        #expect(noOutput.exitCode == 2)
        let badSeed = try ToolRunner.run(["simulate", "--scenario", "healthy-day", "-o", dir.file("x.db"), "--seed", "-1"])
        #expect(badSeed.exitCode == 2)
        // An existing file that simulate did not write (possible evidence) is never replaced.
        let evidence = dir.file("bgeo.db")
        try Data("not mine".utf8).write(to: URL(fileURLWithPath: evidence))
        let refused = try ToolRunner.run(["simulate", "--scenario", "healthy-day", "-o", evidence])
        #expect(refused.exitCode == 2)
        #expect(refused.stderr.contains("refusing to replace"))
        #expect(try String(contentsOfFile: evidence, encoding: .utf8) == "not mine")
        let again = try ToolRunner.run(["simulate", "--scenario", "wal-mode", "-o", dir.file("w.db")])
        let replaced = try ToolRunner.run(["simulate", "--scenario", "wal-mode", "-o", dir.file("w.db")])
        #expect(again.exitCode == 0 && replaced.exitCode == 0, "\(replaced.stderr)")
        let help = try ToolRunner.run(["simulate", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--records"))
    }
}
