import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 25, item 2: a `--since` / `--until` window that holds no row says so (stderr, text and
/// `--json`'s `window`) and raises no finding from the absence; a window that holds rows says
/// how many; comparisons of times are strict ("at" when equal).
@Suite struct TimelineWindowTests {
    static let sample = ReportE2E.packageRoot + "/Samples/stranded-refresh.db"

    /// stranded-refresh's log runs 2026-07-24T06:00:00Z → 17:16:28Z; its 400 records are pending.
    @Test(arguments: [["--since", "2026-07-30"], ["--until", "2026-07-23"]])
    func aWindowThatMissesTheDataSaysSoAndDiagnosesNothing(window: [String]) throws {
        let json = try ToolRunner.run(["timeline", Self.sample, "--json"] + window, currentDirectory: ReportE2E.packageRoot)
        #expect(json.exitCode == 0, "\(json.stderr)")
        let object = try #require(try JSONParser.parse(json.stdout).objectValue)
        let described = try #require(object["window"]?.objectValue, "no window object")
        #expect(described["empty"] == .bool(true))
        #expect(described["logRowsInside"] == .int(0) && described["recordsInside"] == .int(0))
        #expect(described["dumpFirst"]?.stringValue?.hasPrefix("2026-07-24T06:00:00") == true, "\(described)")
        #expect(described["dumpLast"]?.stringValue?.hasPrefix("2026-07-24") == true, "\(described)")
        #expect(object["findings"]?.arrayValue?.isEmpty == true, "an empty window is diagnosed: \(object["findings"] ?? .null)")
        #expect(json.stderr.contains("holds no log row and no queued record"), "stderr: \(json.stderr)")
        #expect(json.stderr.contains("the dump runs from 2026-07-24T06:00:00Z"), "stderr: \(json.stderr)")

        let text = try ToolRunner.run(["timeline", Self.sample] + window, currentDirectory: ReportE2E.packageRoot)
        #expect(text.exitCode == 0)
        #expect(text.stdout.contains("holds no log row and no queued record"), "\(text.stdout)")
        for absent in ["raise logLevel", "expired at", "queue.stranded", "before the last log row"] {
            #expect(!text.stdout.contains(absent), "\(absent) in the empty window's text")
        }
    }

    @Test func aWindowThatHoldsRowsCountsThemAndIsDiagnosed() throws {
        let run = try ToolRunner.run(["timeline", Self.sample, "--json", "--since", "2026-07-24T12:00:00Z"],
                                     currentDirectory: ReportE2E.packageRoot)
        #expect(run.exitCode == 0)
        let object = try #require(try JSONParser.parse(run.stdout).objectValue)
        let described = try #require(object["window"]?.objectValue)
        #expect(described["empty"] == .bool(false))
        let rows = try #require(described["logRowsInside"]?.intValue)
        #expect(rows > 0 && rows < 1734 && .int(Int64(rows)) == object["logRows"], "\(described)")
        #expect(object["findings"]?.arrayValue?.isEmpty == false)
        #expect(!run.stderr.contains("holds no log row"))
    }

    @Test func noWindowMeansNoWindowObject() throws {
        let run = try ToolRunner.run(["timeline", Self.sample, "--json"], currentDirectory: ReportE2E.packageRoot)
        let object = try #require(try JSONParser.parse(run.stdout).objectValue)
        #expect(object["window"] == .null)
    }

    /// The expiry note compares with the last log row strictly: equal times are "at", not "before".
    @Test func aTokenThatExpiresAtTheLastRowIsNotSaidToExpireBeforeIt() throws {
        var facts = TimelineBuilder(dump: try Dump(path: Self.sample)).readFacts()
        let note = try #require(facts.accessTokenNote)
        #expect(note.contains("before the last log row"), "\(note)")
        let expiry = try #require(facts.state.auth?.valueIgnoringCase("accessToken")?.stringValue.flatMap(JWT.expiry))
        facts.lastAt = expiry
        let equal = try #require(facts.accessTokenNote)
        #expect(!equal.contains("before"), "\(equal)")
        #expect(equal.contains("the time of the last log row"), "\(equal)")
        facts.lastAt = expiry - 1
        #expect(facts.accessTokenNote?.contains("valid until") == true)
    }
}
