import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The report is written as it is drawn (`PageText` with a drain): the page must be the same
/// bytes as the page made whole, and what is held must stay about one chunk however long the
/// page (stop 54: the map of 400,000 gaps was 60 MB of SVG held whole, then copied twice).
@Suite struct PageTextTests {
    @Test func drainedChunksMakeTheWholeText() {
        var chunks: [String] = []
        var page = PageText(chunkBytes: 100) { chunks.append($0) }
        var whole = PageText()
        var rng = SystemRandomNumberGenerator()
        for i in 0..<2_000 {
            let piece = String(repeating: i % 3 == 0 ? "é" : "x", count: Int.random(in: 0...40, using: &rng)) + "\(i)"
            page += piece
            whole += piece
            #expect(page.text.utf8.count < 100, "held \(page.text.utf8.count) bytes after a chunk was due")
        }
        page.flush()
        #expect(page.text.isEmpty)
        #expect(chunks.joined() == whole.text)
        #expect(chunks.dropLast().allSatisfy { $0.utf8.count >= 100 })
        #expect(chunks.count > 100)
    }

    @Test func flushWithoutADrainKeepsTheText() {
        var page = PageText()
        page += "abc"
        page.flush()
        #expect(page.text == "abc")
    }

    @Test func streamedReportIsTheWholePage() {
        let (document, html) = ReportFixture.built
        var chunks: [String] = []
        var page = PageText(chunkBytes: 1_024) { chunks.append($0) }
        HTMLReportRenderer().render(document, into: &page)
        page.flush()
        #expect(chunks.count > 10)
        #expect(chunks.joined() == html)
    }

    @Test func streamedMapIsTheWholeMap() {
        let (document, _) = ReportFixture.built
        let renderer = MapRenderer(gapSeconds: document.gapSeconds)
        let whole = renderer.render(document.trace, sketch: document.sketch)
        var chunks: [String] = []
        var page = PageText(chunkBytes: 512) { chunks.append($0) }
        let drawn = renderer.render(document.trace, sketch: document.sketch, into: &page)
        page.flush()
        #expect(chunks.joined() == whole.svg)
        #expect(drawn.legend.map(\.count) == whole.legend.map(\.count))
        #expect(drawn.drawnTrackPoints == whole.drawn.drawnTrackPoints)
    }
}
