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

    /// The map's labels, measured by Chromium as drawn (not by the placer's own estimate): no two
    /// text boxes meet. The demo dump puts the queue head beside the "depot <north>" geofence.
    /// healthy-day's queue head sits on its "home" geofence.
    @Test(.enabled(if: ReportE2E.chromium != nil, "chromium is not installed: cannot measure the labels"),
          arguments: ["demo", "healthy-day", "stranded-refresh"])
    func mapLabelsDoNotOverlapAsDrawn(sample: String) throws {
        let html = sample == "demo" ? ReportCommandTests.report.html : try Self.page(sample)
        let svgStart = try #require(html.range(of: "<svg class=\"map\""))
        let svgEnd = try #require(html.range(of: "</svg>", range: svgStart.upperBound..<html.endIndex))
        let styleStart = try #require(html.range(of: "<style>"))
        let styleEnd = try #require(html.range(of: "</style>", range: styleStart.upperBound..<html.endIndex))
        #expect(html[svgStart.lowerBound..<svgEnd.upperBound].contains("class=\"head-label\""), "no queue head label to check")
        // A page of our own (the report's CSP would block this script): the report's style and map,
        // and a script that writes every pair of meeting label boxes into the DOM.
        let page = "<!doctype html><html><head><meta charset=\"utf-8\">" + html[styleStart.lowerBound..<styleEnd.upperBound]
            + "</head><body>" + html[svgStart.lowerBound..<svgEnd.upperBound] + """
            <script>
            const t=[...document.querySelectorAll('svg.map text')].map(e=>[e.textContent,e.getBBox()]);
            const meet=[];
            for(let i=0;i<t.length;i++)for(let j=i+1;j<t.length;j++){const a=t[i][1],b=t[j][1];
              if(a.x<b.x+b.width&&b.x<a.x+a.width&&a.y<b.y+b.height&&b.y<a.y+a.height)meet.push(t[i][0]+' / '+t[j][0]);}
            const out=document.createElement('pre');out.id='labels';
            out.textContent='labels='+t.length+';meet='+meet.join(' | ')+';end';document.body.appendChild(out);
            </script></body></html>
            """
        let path = ReportE2E.directory.file("label-check-\(sample).html")
        try page.write(toFile: path, atomically: true, encoding: .utf8)
        let dom = try ReportE2E.renderedDOM(path)
        let found = dom.range(of: "<pre id=\"labels\">").map { String(dom[$0.upperBound...].prefix { $0 != "<" }) }
        let line = try #require(found, "the script did not run")
        #expect(!line.contains("labels=0;"), "\(line)")
        #expect(line.contains(";meet=;end"), "labels drawn over each other: \(line)")
    }
}
