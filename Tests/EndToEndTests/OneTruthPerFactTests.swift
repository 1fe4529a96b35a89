import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// One truth per fact (issue 25): the numbers a support engineer pastes into a ticket — queued
/// records, log rows, upload attempts, gaps, findings — are the same in every output of the same
/// dump: `inspect --json`, `timeline --json`, the report's cards and map legend, the GPX tracks'
/// segments and the fleet row. Checked on every sample and on multi-day simulated dumps of every
/// scenario (several days, sessions and relaunches). The map's legend counts gaps between
/// *accepted* fixes and says so; it is compared with the replayed track's segments.
@Suite(.serialized) struct OneTruthPerFactTests {
    static let dir = TestDirectory("one-truth")

    static var dumps: [String] {
        let samples = (try? FileManager.default.contentsOfDirectory(atPath: ReportE2E.packageRoot + "/Samples")) ?? []
        return samples.filter { $0.hasSuffix(".db") }.sorted().map { ReportE2E.packageRoot + "/Samples/" + $0 }
    }

    static func json(_ words: [String]) throws -> JSONValue {
        let result = try ToolRunner.run(words)
        #expect(result.exitCode == 0, "\(words.joined(separator: " ")): \(result.stderr)")
        return try JSONParser.parse(result.stdout)
    }

    /// The number in the report's card whose label starts with `label`.
    static func card(_ html: String, _ label: String) -> Int? {
        guard let range = html.range(of: "</b><span>\(label)") else { return nil }
        let before = html[..<range.lowerBound]
        guard let open = before.range(of: "<b>", options: .backwards) else { return nil }
        return Int(before[open.upperBound...])
    }

    static func segments(_ gpx: String) -> Int { gpx.components(separatedBy: "<trkseg>").count - 1 }

    static func check(_ dump: String) throws {
        let name = (dump as NSString).lastPathComponent
        let out = dir.file(name + ".out")
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let inspect = try json(["inspect", dump, "--json"])
        let timeline = try json(["timeline", dump, "--json"])
        #expect(try ToolRunner.run(["report", dump, "-o", out + "/r.html"]).exitCode == 0)
        let html = try String(contentsOfFile: out + "/r.html", encoding: .utf8)
        #expect(try ToolRunner.run(["gpx", dump, "--track", "raw", "-o", out + "/raw.gpx"]).exitCode == 0)
        #expect(try ToolRunner.run(["gpx", dump, "-o", out + "/replayed.gpx"]).exitCode == 0)
        let raw = try String(contentsOfFile: out + "/raw.gpx", encoding: .utf8)
        let replayed = try String(contentsOfFile: out + "/replayed.gpx", encoding: .utf8)
        #expect(try ToolRunner.run(["fleet", dump, "-o", out + "/f.ndjson"]).exitCode == 0)
        let row = try JSONParser.parse(try String(contentsOfFile: out + "/f.ndjson", encoding: .utf8)
            .split(separator: "\n").first.map(String.init) ?? "{}")

        // Queued records.
        let pending = timeline["pendingRecords"]?.intValue
        #expect(inspect["queue"]?["count"]?.intValue == pending, "\(name): inspect vs timeline pending")
        #expect(row["queue"]?["records"]?.intValue == pending, "\(name): fleet vs timeline pending")
        #expect(card(html, "queued r") == pending, "\(name): report card vs timeline pending")

        // Gaps: the timeline's, the report's card, the raw track's segments.
        let gaps = (timeline["gaps"]?.arrayValue?.count ?? 0) + (timeline["omitted"]?["gaps"]?.intValue ?? 0)
        #expect(card(html, "gaps ≥") == gaps, "\(name): report card \(card(html, "gaps ≥") ?? -1) vs timeline \(gaps) gaps")
        if segments(raw) > 0 { #expect(segments(raw) - 1 == gaps, "\(name): raw GPX \(segments(raw)) segments vs \(gaps) gaps") }
        // Between accepted fixes: the map's legend and the replayed track.
        let legend = html.range(of: "between accepted fixes (dashed): <b>").map { html[$0.upperBound...].prefix { $0.isNumber } }.flatMap { Int($0) } ?? 0
        if segments(replayed) > 0 { #expect(segments(replayed) - 1 == legend, "\(name): replayed GPX vs map legend") }

        // Upload attempts and findings.
        let attempts = (timeline["attempts"]?.arrayValue?.count ?? 0) + (timeline["omitted"]?["attempts"]?.intValue ?? 0)
        #expect(row["uploads"]?["attempts"]?.intValue == attempts, "\(name): fleet vs timeline attempts")
        if attempts > 0 { #expect(card(html, "upload attempts") == attempts, "\(name): report card vs timeline attempts") }
        let findings = timeline["findings"]?.arrayValue?.count ?? 0
        let fleetFindings = row["findings"]?.arrayValue?.reduce(0) { $0 + ($1["count"]?.intValue ?? 0) } ?? 0
        #expect(fleetFindings == findings, "\(name): fleet \(fleetFindings) vs timeline \(findings) findings")

        // Log rows.
        let logRows = timeline["logRows"]?.intValue
        #expect(inspect["log"]?["count"]?.intValue ?? 0 == logRows ?? 0, "\(name): inspect vs timeline log rows")
        if (logRows ?? 0) > 0 { #expect(card(html, "log rows") == logRows, "\(name): report card vs timeline log rows") }
    }

    @Test(arguments: OneTruthPerFactTests.dumps.map { ($0 as NSString).lastPathComponent })
    func everySampleShowsOneNumberPerFact(_ sample: String) throws {
        try Self.check(ReportE2E.packageRoot + "/Samples/" + sample)
    }

    /// Three simulated days (1,500 fixes) of every scenario: several sessions, relaunches and
    /// stationary nights, geofence records among the fixes.
    @Test(arguments: Scenario.allCases)
    func multiDaySimulatedDumpsShowOneNumberPerFact(_ scenario: Scenario) throws {
        let path = Self.dir.file("\(scenario.rawValue)-1500.db")
        if !FileManager.default.fileExists(atPath: path) {
            _ = try Simulator.write(scenario: scenario, to: path, records: 1500)
        }
        try Self.check(path)
    }
}
