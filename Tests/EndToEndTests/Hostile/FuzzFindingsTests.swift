import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// What the fuzz suite found, each from its exact case (seed, case number and recipe in the name).
@Suite struct FuzzFindingsTests {
    /// seed 73019 case 671: a state `config` whose `url` is an array nested 511 deep (the reader's
    /// limit is 512) made `inspect --json` print it 514 levels deep. That is valid JSON, but the
    /// runner's check used the reader's limit and called it invalid: the check now parses output
    /// as deep as 4096 levels, and this pins that the tool keeps printing such values whole and valid.
    @Test func seed73019Case671DeeplyNestedConfigValueInInspectJSON() throws {
        let dir = TestDirectory("finding-671")
        let nested = String(repeating: "[", count: 511) + String(repeating: "]", count: 511)
        let dump = try Hostile.dump(at: dir.file("bgeo.db"), layout: .legacy(withState: true)) { w in
            try w.setState("config", raw: "{\"authorization\":{\"accessToken\":\"x\"},\"url\":\(nested)}")
        }
        let result = try Hostile.run(["inspect", dump, "--json"])
        #expect(result.exitCode == 0)
        let bytes = Array(result.stdout.utf8)
        #expect(FuzzRunner.parsesAsJSON(bytes))
        #expect(bytes.withUnsafeBufferPointer { (try? JSONParser.parse(bytes: $0)) == nil }, "deeper than the reader's own limit")
        for command in ["timeline", "replay", "logs", "locations"] {
            let other = try Hostile.run([command, dump, "--json"])
            #expect(other.exitCode == 0 && FuzzRunner.parsesAsJSON(Array(other.stdout.utf8)), "\(command)")
        }
    }

    /// seed 20261201 cases 544 and 1489 (legacy dumps without state; pages swapped, bytes flipped,
    /// garbage appended): the damaged file yields rows that break their own table's definition — two
    /// `location_events` rows with the same UNIQUE uuid (544), a rowid that is not an integer (1489).
    /// `sanitize` keeps the dump's schema, so SQLite refused those rows and the run ended with exit 1
    /// ("UNIQUE constraint failed", "datatype mismatch") and no output. Now such rows are left out of
    /// the copy and said: a located warning each, a per-table count in the report and `--json`.
    @Test func seed20261201Cases544And1489SanitizeLeavesOutRowsThatBreakTheirSchema() throws {
        let scratch = TestDirectory("finding-sanitize-refused")
        let campaign = FuzzCampaign(seed: 20_261_201, count: 1, runner: FuzzRunner(tool: ToolRunner.executable, timeout: 120),
                                    scratch: scratch.path)
        for index in [544, 1489] {
            #expect(campaign.runOne(index).isEmpty, "case \(index)")
        }
        // The same refusal, planted: a dump whose table definition the rows already break.
        let dir = TestDirectory("sanitize-refused")
        let dump = try Hostile.dump(at: dir.file("bgeo.db"), records: 2, layout: .legacy(withState: false))
        let edit = try ReportE2E.run("/usr/bin/sqlite3", [dump, """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = replace(sql, 'created_at TEXT NOT NULL)', 'created_at TEXT NOT NULL, CHECK (id <> 2))')
              WHERE name = 'location_events';
            """])
        #expect(edit.exitCode == 0, "\(edit.stderr)")
        let out = dir.file("out.db")
        let result = try ReportE2E.run(ToolRunner.executable, ["sanitize", dump, "-o", out, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let report = try #require(try JSONParser.parse(result.stdout).objectValue)
        let events = report["tables"]?.arrayValue?.first { $0.objectValue?["table"]?.stringValue == "location_events" }?.objectValue
        #expect(events?["rows"]?.intValue == 2 && events?["leftOut"]?.intValue == 1, "\(result.stdout)")
        let warnings = report["warnings"]?.arrayValue ?? []
        #expect(warnings.contains { ($0.objectValue?["message"]?.stringValue ?? "").contains("not copied into the sanitised dump: its table's own definition refuses the row (CHECK constraint failed") },
                "\(warnings)")
        #expect(try ReportE2E.run("/usr/bin/sqlite3", [out, "SELECT id FROM location_events"]).stdout == "1\n")
        let text = try ReportE2E.run(ToolRunner.executable, ["sanitize", dump, "-o", out, "--force"])
        #expect(text.stderr.contains("location_events: 2 rows, 1 not copied (the table's own definition refuses them"), "\(text.stderr)")
    }

    /// seed 4187 case 9536 (a current dump, 6 bytes flipped): the flips renamed a column of the
    /// `state` table's definition, so the copy's `state` (same definition) had no `value` column for
    /// the sanitisation marker and `sanitize` ended with exit 1 ("table state has no column named
    /// value"). A dump whose `state` cannot take the marker is now refused with exit 2 and one
    /// sentence, nothing written: a copy that does not say it was sanitised would be read as evidence.
    @Test func seed4187Case9536SanitizeRefusesAStateTableWithoutKeyAndValue() throws {
        let scratch = TestDirectory("finding-sanitize-state")
        let campaign = FuzzCampaign(seed: 4187, count: 1, runner: FuzzRunner(tool: ToolRunner.executable, timeout: 120),
                                    scratch: scratch.path)
        #expect(campaign.runOne(9536).isEmpty)
        let dir = TestDirectory("sanitize-state-shape")
        let dump = try Hostile.dump(at: dir.file("bgeo.db"), records: 2)
        let edit = try ReportE2E.run("/usr/bin/sqlite3", [dump, """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = replace(sql, 'value TEXT', 'valuf TEXT') WHERE name = 'state';
            """])
        #expect(edit.exitCode == 0, "\(edit.stderr)")
        let result = try ReportE2E.run(ToolRunner.executable, ["sanitize", dump, "-o", dir.file("out.db")])
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains("its state table has no key and value columns (it has 'key', 'valuf')"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(Hostile.entries(dir.path) == ["bgeo.db"], "nothing written")
    }
}
