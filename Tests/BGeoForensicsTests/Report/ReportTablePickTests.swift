import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The report's tables: their first and last rows are picked while the dump is read, then
/// completed with the rows the findings and the replay's top contributors cite; the drawings'
/// first pass is made while the trace is written.
@Suite struct ReportTablePickTests {
    /// The demo dump's tables are capped at 60 rows (30 first, 30 last): a contributor in the
    /// middle of a table is there only because it was added after the reading.
    @Test func topContributorRowsAreAddedInOrder() throws {
        let doc = ReportFixture.built.document
        let cited = doc.replay.topContributors.compactMap(\.evidence?.anchor)
        #expect(!cited.isEmpty)
        var addedAfterReplay = 0
        for table in doc.tables where table.id == "queue" || table.id == "log" {
            let ids = table.rows.compactMap { $0.first?.intValue }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(table.id) rows out of order or repeated")
            #expect(table.anchors == ids.map { "\(table.id)-\($0)" })
            for anchor in cited where anchor.hasPrefix(table.id + "-") {
                let index = try #require(table.anchors.firstIndex(of: anchor), "\(anchor) missing from the \(table.id) table")
                #expect(doc.evidenceText[anchor]?.isEmpty == false, "\(anchor) has no evidence text")
                if index >= 30, index < table.anchors.count - 30 { addedAfterReplay += 1 }
            }
        }
        #expect(addedAfterReplay > 0, "no contributor outside the first and last rows: the late addition is not exercised")
    }

    @Test func addingRowsKeepsIdsAndRowsAscending() {
        struct Row { var rowId: Int64 }
        var picked = PickedRows(ids: [1, 5, 9], total: 20, rows: [Row(rowId: 1), Row(rowId: 5), Row(rowId: 9)],
                                rowId: \.rowId) { "row \($0.rowId)" }
        var asked: [[Int64]] = []
        // 5 is already there; 7 has no row in the table (read returns none for it).
        picked.add(ids: [5, 3, 12, 7], from: { ids in
            asked.append(ids)
            return ids.filter { $0 != 7 }.map(Row.init)
        }, show: { "late \($0.rowId)" })
        #expect(asked == [[3, 7, 12]])
        #expect(picked.ids == [1, 3, 5, 7, 9, 12])
        #expect(picked.rows.map(\.row.rowId) == [1, 3, 5, 9, 12])
        #expect(picked.rows.map(\.shown) == ["row 1", "late 3", "row 5", "row 9", "late 12"])
        picked.add(ids: [1, 9], from: { _ in Issue.record("nothing new to read"); return [] }, show: { _ in "" })
        #expect(picked.total == 20)
    }

    /// The map and the charts drawn from the sketch the replay made are the ones drawn by walking
    /// the stored trace for it.
    @Test func drawingsFromTheSketchEqualTheirOwnPass() throws {
        // The stored trace's replay: its sketch has the charts' series too.
        let (doc, _) = try ReportLiveReplayTests.build(ReportFixture.dumpPath, windows: .standard, followsLiveTrace: false)
        let sketch = try #require(doc.sketch)
        #expect(sketch.fixBounds != nil)
        #expect(sketch.chartSeries != nil)
        var walked = doc
        walked.sketch = nil
        let renderer = HTMLReportRenderer()
        var fromSketch = PageText(), fromPass = PageText()
        renderer.map(doc, into: &fromSketch)
        renderer.map(walked, into: &fromPass)
        #expect(fromSketch.text == fromPass.text)
        #expect(fromSketch.text.contains("<path class=\"trk\""))
        fromSketch = PageText()
        fromPass = PageText()
        renderer.charts(doc, into: &fromSketch)
        renderer.charts(walked, into: &fromPass)
        #expect(fromSketch.text == fromPass.text)
        #expect(fromSketch.text.contains("series-speed") && fromSketch.text.contains("series-acc"))
    }

    /// The charts' reading of the stored trace (numbers only) gives each fix's own fields.
    @Test func chartSamplesAreTheFixesFields() {
        let trace = ReportFixture.built.document.trace
        var fromFixes: [ChartSample] = [], read: [ChartSample] = []
        trace.forEachFix { fromFixes.append(ChartSample($0)) }
        trace.forEachChartSample { read.append($0) }
        #expect(read.count == trace.fixCount && read.count > 200)
        #expect(read.map(\.time) == fromFixes.map(\.time))
        #expect(read.map(\.rejected) == fromFixes.map(\.rejected) && read.contains { $0.rejected })
        #expect(read.map(\.speed) == fromFixes.map(\.speed) && read.contains { $0.speed == nil } == fromFixes.contains { $0.speed == nil })
        #expect(read.map(\.accuracy) == fromFixes.map(\.accuracy))
    }

    /// A sketch made for another time axis is not used: the charts reduce the series again.
    @Test func sketchForAnotherAxisIsIgnored() throws {
        var doc = ReportFixture.built.document
        var walked = doc
        walked.sketch = nil
        doc.firstTime = (doc.firstTime ?? 0) - 3600
        walked.firstTime = doc.firstTime
        var a = PageText(), b = PageText()
        HTMLReportRenderer().charts(doc, into: &a)
        HTMLReportRenderer().charts(walked, into: &b)
        #expect(a.text == b.text)
    }
}
