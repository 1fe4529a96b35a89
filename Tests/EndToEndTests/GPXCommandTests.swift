import BGeoForensics
import Foundation
import Testing

@Suite struct GPXCommandTests {
    @Test func writesValidGPXWithCounts() throws {
        let out = ReportE2E.directory.file("raw.gpx")
        let result = try ToolRunner.run(["gpx", ReportE2E.dump, "-o", out, "--track", "raw", "--json", "--generated-at", "2026-08-01T12:00:00Z"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"segments\": 2"))
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("creator=\"bgeo-forensics"))
        #expect(text.contains("<time>2026-08-01T12:00:00.000Z</time>"))
        if let xmllint = ReportE2E.tool("xmllint"), let schema = ReportE2E.gpxSchema {
            let check = try ReportE2E.run(xmllint, ["--noout", "--schema", schema, out])
            #expect(check.exitCode == 0, "\(check.stderr)")
        }
    }

    @Test func streamsToStdoutByDefault() throws {
        let result = try ToolRunner.run(["gpx", ReportE2E.dump, "--track", "recorded"])
        #expect(result.exitCode == 0)
        #expect(result.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(result.stdout.contains("</gpx>"))
    }

    @Test func gapOptionChangesSegments() throws {
        let out = ReportE2E.directory.file("gap.gpx")
        let result = try ToolRunner.run(["gpx", ReportE2E.dump, "-o", out, "--track", "recorded", "--gap", "2h", "--json"])
        #expect(result.exitCode == 0)
        #expect(result.stdout.contains("\"segments\": 1"))
    }

    @Test func usageErrors() throws {
        #expect(try ToolRunner.run(["gpx", ReportE2E.dump, "--track", "sideways"]).exitCode == 2)
        #expect(try ToolRunner.run(["gpx", ReportE2E.dump, "--track", "raw", "--set", "locationFilterMaxSpeed=30"]).exitCode == 2)
        #expect(try ToolRunner.run(["gpx", ReportE2E.dump, "--json"]).exitCode == 2)
        let help = try ToolRunner.run(["gpx", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--track"))
    }

    @Test(.enabled(if: ReportE2E.tool("gpsbabel") != nil, "gpsbabel is not installed"))
    func gpsbabelAgrees() throws {
        let out = ReportE2E.directory.file("babel.gpx")
        let result = try ToolRunner.run(["gpx", ReportE2E.dump, "-o", out, "--track", "recorded", "--json"])
        let points = result.stdout.range(of: #""points": (\d+)"#, options: .regularExpression).map { String(result.stdout[$0].dropFirst(10)) }
        let csv = try ReportE2E.run(ReportE2E.tool("gpsbabel")!, ["-t", "-i", "gpx", "-f", out, "-o", "unicsv", "-F", "-"])
        let rows = csv.stdout.split(whereSeparator: \.isNewline).filter { $0.first?.isNumber == true }.count
        #expect(points == String(rows))
    }
}
