import Foundation
import Testing

/// Issue 26, item 6: the report shows no Markdown, and ids, uuids, kinds and times stay whole on
/// one line (they wrapped mid-word: "locati/on").
@Suite struct ReportPolishTests {
    static func page(_ sample: String) throws -> String {
        try String(contentsOfFile: ReportE2E.packageRoot + "/Reports/\(sample).html", encoding: .utf8)
    }

    @Test(arguments: ["stranded-refresh", "healthy-day", "longping", "damaged-rows"])
    func noMarkdownReachesThePage(sample: String) throws {
        let html = try Self.page(sample)
        #expect(!html.contains("`"), "a Markdown backtick in \(sample).html")
    }

    @Test func identifierColumnsStayWholeOnOneLine() throws {
        let html = try Self.page("stranded-refresh")
        for label in ["uuid", "timestamp", "kind", "ts", "level", "src", "event", "time"] {
            #expect(html.contains("{\"label\":\"\(label)\",\"num\":false,\"id\":true}"), "\(label) is not an identifier column")
        }
        #expect(html.contains("table.dt td.id{font-family:ui-monospace"))
        #expect(html.contains("white-space:nowrap}"))
        #expect(html.contains("if(cols[c].id){td.title=text;"), "the full value on hover")
        // Free text still wraps.
        #expect(html.contains("{\"label\":\"message\",\"num\":false}"))
    }
}
