import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

@Suite struct HTMLReportTests {
    @Test func escapeNeutralisesMarkup() {
        #expect(HTMLEscape.escape("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
        #expect(HTMLEscape.escape("a \"b\" & c") == "a &quot;b&quot; &amp; c")
        #expect(HTMLEscape.escape("plain café ✓") == "plain café ✓")
        #expect(HTMLEscape.escape("nul\u{0}bell\u{7}") == "nul\u{FFFD}bell\u{FFFD}")
        #expect(HTMLEscape.escape("tab\tnl\n") == "tab\tnl\n")
        // Found by a hostile run: a bidi override in a log row's text reached the report raw.
        #expect(HTMLEscape.escape("https://x/v1\u{202E}?token=") == "https://x/v1\\u{202e}?token=")
        #expect(HTMLEscape.escape("del\u{7F} c1\u{9B} lsep\u{2028}") == "del\\u{7f} c1\\u{9b} lsep\\u{2028}")
        #expect(HTMLEscape.escape("é <b>\u{200F}") == "é &lt;b&gt;\\u{200f}")
    }

    @Test func plantedScriptsAreText() {
        let html = ReportFixture.built.html
        #expect(!html.contains("<script>document.title"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<div id=\"pwned\">"))
        // Exactly one executable script element: the page's own (data blocks are application/json).
        #expect(html.components(separatedBy: "<script>").count == 2)
        #expect(html.components(separatedBy: "</script>").count - 1 == html.components(separatedBy: "<script").count - 1)
    }

    @Test func noNetworkReferencesAndNoSecrets() {
        let html = ReportFixture.built.html
        #expect(!html.contains("http://"))
        // Dump URLs may appear as text, never as a reference: no tag attribute points anywhere.
        let reference = try! NSRegularExpression(pattern: "<[a-zA-Z][^>]*\\s(src|href|xlink:href|action|srcset|poster|data)\\s*=\\s*[\"']?(https?:|//)",
                                                 options: [.caseInsensitive])
        #expect(reference.firstMatch(in: html, range: NSRange(html.startIndex..., in: html)) == nil)
        for construct in ["url(", "@import", "<link", "<img", "<iframe", "<object", "<embed"] {
            #expect(!html.contains(construct), "found \(construct)")
        }
        for secret in ReportDemoDump.plantedSecrets { #expect(!html.contains(secret), "secret \(secret) leaked") }
    }

    @Test func cspAllowsOnlyOwnBlocks() throws {
        let html = ReportFixture.built.html
        let csp = HTMLReportRenderer.contentSecurityPolicy
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"\(csp)\">"))
        #expect(csp.hasPrefix("default-src 'none'"))
        #expect(!csp.contains("unsafe"))
        #expect(csp.contains(HTMLReportRenderer.cspHash(ReportAssets.script)))
        #expect(html.contains("<script>\(ReportAssets.script)</script>"))
        #expect(html.contains("<style>\(ReportAssets.css)</style>"))
        // Known answer: sha256("") base64.
        #expect(HTMLReportRenderer.cspHash("") == "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='")
    }

    @Test func sectionsPresent() {
        let html = ReportFixture.built.html
        for id in ["overview", "findings", "map", "charts", "replay", "tables", "state", "warnings"] {
            #expect(html.contains("<section id=\"\(id)\">"), "section \(id)")
        }
        #expect(html.contains("@media print"))
        #expect(html.contains("class=\"gap\""))
        #expect(html.contains("queue head"))
        #expect(html.contains("‹redacted sha256:"))
        #expect(html.contains("data-table=\"data-queue\""))
    }

    /// Every gap is shaded, however many: gaps closer than a pixel share one band (its title
    /// counts them), gaps apart get their own.
    @Test func gapBandsCoverEveryGapAndMergeWithinAPixel() {
        var doc = ReportFixture.built.document
        let t0 = 1_785_000_000.0
        // 1,000 gaps of 15 min, one per 16 min (11 days): on a 960-px chart of 34 days they all touch.
        doc.gaps = (0..<1000).map { i in ReportGap(start: t0 + Double(i) * 960, end: t0 + Double(i) * 960 + 900) }
        // One more, alone, 30 days later.
        doc.gaps.append(ReportGap(start: t0 + 30 * 86_400, end: t0 + 30 * 86_400 + 3600))
        let chart = TimeChart(start: t0, end: t0 + 34 * 86_400, yMax: 10, yLabel: "y")
        let svg = HTMLReportRenderer().gapBands(doc, chart)
        let bands = svg.components(separatedBy: "<rect class=\"gap-band\"").count - 1
        #expect(bands == 2)
        #expect(svg.contains("1000 gaps"))
        #expect(svg.contains("gap: 1 h 00 min"))
    }
}
