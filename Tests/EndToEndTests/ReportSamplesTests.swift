import BGeoForensics
import Foundation
import Testing

/// The committed example outputs in Reports/ are current: regenerating them from Samples/ with the
/// fixed generation time of `.ci/reports` gives the same bytes; every one passes the judges.
@Suite struct ReportSamplesTests {
    /// Must match GENERATED_AT in .ci/reports.
    static let generatedAt = "2026-07-25T00:00:00Z"
    static let root = ReportE2E.packageRoot

    static var samples: [String] {
        let folder = root + "/Samples"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".db") }.sorted().map { String($0.dropLast(3)) }
    }

    @Test func everySampleHasAReportAndGPX() throws {
        let samples = ReportSamplesTests.samples
        try #require(!samples.isEmpty, "no Samples/*.db in \(ReportSamplesTests.root)")
        for name in samples {
            #expect(FileManager.default.fileExists(atPath: "\(ReportSamplesTests.root)/Reports/\(name).html"), "Reports/\(name).html missing: run .ci/reports")
            #expect(FileManager.default.fileExists(atPath: "\(ReportSamplesTests.root)/Reports/\(name).gpx"), "Reports/\(name).gpx missing: run .ci/reports")
        }
        #expect(FileManager.default.fileExists(atPath: "\(ReportSamplesTests.root)/Reports/screenshot.png"))
    }

    @Test func committedReportsAreCurrent() throws {
        let out = TestDirectory("samples-current")
        let result = try ToolRunner.run(["report", "--all", "Samples", "-o", out.path, "--generated-at", ReportSamplesTests.generatedAt],
                                        currentDirectory: ReportSamplesTests.root)
        #expect(result.exitCode == 0, "\(result.stderr)")
        for name in ReportSamplesTests.samples {
            let fresh = try Data(contentsOf: URL(fileURLWithPath: out.file(name + ".html")))
            let committed = try Data(contentsOf: URL(fileURLWithPath: "\(ReportSamplesTests.root)/Reports/\(name).html"))
            // Bool(...): a byte-by-byte diff of two HTML files would bury the message.
            #expect(Bool(fresh == committed), "Reports/\(name).html is stale (\(fresh.count) bytes fresh, \(committed.count) committed): run .ci/reports")
            let html = String(decoding: fresh, as: UTF8.self)
            #expect(!html.contains("sk_live_"), "an api key leaked into \(name).html")
            #expect(!html.contains("Bearer ey"), "a token leaked into \(name).html")
            #expect(!html.contains("http://"))
            #expect(html.range(of: #"<[a-zA-Z][^>]*\s(src|href)\s*=\s*["']?(https?:|//)"#, options: .regularExpression) == nil)
        }
    }

    @Test func committedGPXAreCurrentAndValid() throws {
        let out = TestDirectory("samples-gpx")
        for name in ReportSamplesTests.samples {
            let path = out.file(name + ".gpx")
            let result = try ToolRunner.run(["gpx", "Samples/\(name).db", "-o", path, "--generated-at", ReportSamplesTests.generatedAt, "--json"],
                                            currentDirectory: ReportSamplesTests.root)
            #expect(result.exitCode == 0, "\(result.stderr)")
            let fresh = try Data(contentsOf: URL(fileURLWithPath: path))
            let committed = try Data(contentsOf: URL(fileURLWithPath: "\(ReportSamplesTests.root)/Reports/\(name).gpx"))
            #expect(Bool(fresh == committed), "Reports/\(name).gpx is stale (\(fresh.count) bytes fresh, \(committed.count) committed): run .ci/reports")
            if let xmllint = ReportE2E.tool("xmllint"), let schema = ReportE2E.gpxSchema {
                let check = try ReportE2E.run(xmllint, ["--noout", "--schema", schema, path])
                #expect(check.exitCode == 0, "\(name).gpx: \(check.stderr)")
            }
            if let gpsbabel = ReportE2E.tool("gpsbabel") {
                let csv = try ReportE2E.run(gpsbabel, ["-t", "-i", "gpx", "-f", path, "-o", "unicsv", "-F", "-"])
                let rows = csv.stdout.split(whereSeparator: \.isNewline).filter { $0.first?.isNumber == true }.count
                #expect(result.stdout.contains("\"points\": \(rows)"), "\(name): gpsbabel read \(rows) points; we wrote \(result.stdout)")
                let gpx = try ReportE2E.run(gpsbabel, ["-t", "-i", "gpx", "-f", path, "-o", "gpx", "-F", "-"])
                let segments = gpx.stdout.components(separatedBy: "<trkseg>").count - 1
                #expect(result.stdout.contains("\"segments\": \(segments)"), "\(name): gpsbabel saw \(segments) segments")
            }
        }
    }

    @Test(.enabled(if: ReportE2E.chromium != nil, "chromium is not installed: cannot load the sample reports"))
    func chromiumLoadsEverySampleReport() throws {
        for name in ReportSamplesTests.samples {
            let dom = try ReportE2E.renderedDOM("\(ReportSamplesTests.root)/Reports/\(name).html")
            #expect(dom.contains("data-tables-ready=\""), "\(name): the table script did not run")
            #expect(dom.contains("<tr id=\"log-") || dom.contains("<tr id=\"queue-"), "\(name): no rows rendered")
            #expect(dom.contains("<title>\(name).db — BGeo forensics report</title>"))
        }
    }
}
