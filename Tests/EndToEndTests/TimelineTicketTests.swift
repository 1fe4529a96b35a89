import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 26, item 5: `timeline --ticket` is a Markdown summary of at most 30 lines with the dump's
/// name and SHA-256, its format and span, each finding (code, severity, one sentence, who, what to
/// do, first rows), the tool's version and the command that reproduces it.
@Suite struct TimelineTicketTests {
    static let samples = ReportE2E.packageRoot + "/Samples"

    @Test(arguments: ["stranded-refresh", "healthy-day", "poison-batch", "longping", "damaged-rows", "process-kill"])
    func everySampleGivesAShortCompleteTicket(sample: String) throws {
        let path = Self.samples + "/\(sample).db"
        let run = try ToolRunner.run(["timeline", path, "--ticket"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count <= TimelineTicketRenderer.lineLimit, "\(lines.count) lines")
        let json = try JSONParser.parse(try ToolRunner.run(["timeline", path, "--json"]).stdout)
        let sha = try #require(json["inputs"]?.arrayValue?.first?["sha256"]?.stringValue)
        #expect(run.stdout.contains(String(sha.prefix(16))))
        #expect(run.stdout.contains("\(sample).db"))
        #expect(run.stdout.contains("\(ToolInfo.name) \(ToolInfo.version)"))
        #expect(run.stdout.contains("reproduce: `bgeo-forensics timeline \(sample).db --ticket`"))
        for finding in json["findings"]?.arrayValue ?? [] {
            let code = try #require(finding["code"]?.stringValue)
            #expect(run.stdout.contains("`\(code)`"), "\(code) missing")
            #expect(run.stdout.contains("Who: \(finding["responsible"]?.stringValue ?? "?")"))
        }
        #expect(!run.stdout.contains("\u{1b}"))
    }

    @Test func aLongListOfFindingsIsCutAndCountedNeverDropped() throws {
        var findings: [Finding] = []
        for n in 0..<20 {
            findings.append(Finding(code: "tracking.gap", severity: n < 3 ? .warning : .info, summary: "Gap \(n). More words.",
                                    evidence: [Evidence(logIds: [Int64(n)])], responsible: .device, action: "Look. Then more."))
        }
        let timeline = Timeline(dumpName: "x.db", format: .bgeo, policy: .bgeo, authorizationConfigured: false, tokenRefresh: "",
                                configSource: "", gapThreshold: 900, since: nil, until: nil, logRows: 1, firstAt: 0, lastAt: 1,
                                pendingRecords: 0, events: [], attempts: [], gaps: [], findings: findings,
                                omittedEvents: 0, omittedAttempts: 0, omittedGaps: 0)
        let lines = TimelineTicketRenderer().lines(timeline)
        #expect(lines.count <= TimelineTicketRenderer.lineLimit)
        let more = try #require(lines.first { $0.contains("more finding") }, "\(lines)")
        let shown = lines.filter { $0.contains("`tracking.gap`") }.count
        #expect(more.contains("and \(20 - shown) more findings"), "\(more)")
        #expect(lines.contains { $0.contains("— Gap 0.") } && !lines.contains { $0.contains("More words") }, "one sentence each")
    }

    /// A dump's strings cannot format the Markdown or break out of a code span.
    @Test func customerTextIsEscapedForMarkdown() {
        #expect(TimelineTicketRenderer.text("<img src=x> *bold* [a](b) `c`") == "\\<img src=x\\> \\*bold\\* \\[a\\](b) \\`c\\`")
        #expect(TimelineTicketRenderer.code("a`b\u{1b}[31m") == "`a'b\\u{1b}[31m`")
        #expect(TimelineTicketRenderer.shellWord("my dump's.db") == "'my dump'\\''s.db'")
        #expect(TimelineTicketRenderer.shellWord("bgeo.db") == "bgeo.db")
    }

    @Test func ticketAndAnotherFormatContradict() throws {
        let run = try ToolRunner.run(["timeline", Self.samples + "/healthy-day.db", "--ticket", "--json"])
        #expect(run.exitCode == 2 && run.stdout.isEmpty)
    }
}
