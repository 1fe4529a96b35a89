import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The committed sample dumps, each built into a report document once.
enum SampleReports {
    /// The repository's Samples/ (this file is Tests/BGeoForensicsTests/Report/ReportChartTests.swift).
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path

    static let paths: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        .filter { $0.hasSuffix(".db") }.sorted().map { folder + "/" + $0 }

    static func document(_ path: String) throws -> ReportDocument {
        try ReportBuilder.build(dump: try Dump(path: path), options: ReportOptions(generatedAt: 1_785_000_000))
    }

    static let stranded: (document: ReportDocument, html: String) = {
        do {
            let document = try document(folder + "/stranded-refresh.db")
            return (document, HTMLReportRenderer().render(document))
        } catch { fatalError("stranded-refresh sample: \(error)") }
    }()

    /// Every `queue.insert` row: its log id and the depth it states (the queue after the insert).
    static func inserts(_ path: String) throws -> [(logId: Int64, time: Double, count: Int)] {
        var rows: [(Int64, Double, Int)] = []
        try Dump(path: path).forEachLogEntry(LogQuery(events: ["queue.insert"])) { entry in
            if let count = entry.data?["count"]?.intValue { rows.append((entry.rowId, entry.time, count)) }
        }
        return rows
    }
}

@Suite struct ReportChartTests {
    /// The depth the chart draws is the one `queue.insert` states, on every sample and every
    /// insert, and just before each insert it is one less: the depth a reader counting the
    /// queue would find. (The old series took `queue.prune {count: 1}` — one record evicted —
    /// for a depth of 1, and showed a full queue draining.)
    @Test(arguments: SampleReports.paths)
    func depthSeriesFollowsEveryQueueInsert(_ path: String) throws {
        let inserts = try SampleReports.inserts(path)
        let series = try SampleReports.document(path).queueDepth.points()
        guard !inserts.isEmpty else { return }  // depth only from sync.deferred pending counts (legacy-schema)
        let index = Dictionary(series.enumerated().compactMap { i, p in p.logId.map { ($0, i) } }, uniquingKeysWith: { a, _ in a })
        for insert in inserts {
            let i = try #require(index[insert.logId], "\(path): queue.insert row \(insert.logId) is not in the series")
            #expect(series[i].depth == insert.count, "\(path): row \(insert.logId) says \(insert.count), the chart \(series[i].depth)")
            if i > 0 {
                #expect(series[i - 1].depth == insert.count - 1,
                        "\(path): before row \(insert.logId) (depth \(insert.count)) the chart shows \(series[i - 1].depth)")
            }
        }
    }

    /// stranded-refresh: the queue reaches its 400-record cap at 16:43:23 and stays there until
    /// the dump (maxRecordsToPersist evicts one record per insert, `queue.prune {count: 1}`).
    /// The drawn line never dips below 399 there.
    @Test func strandedQueueIsDrawnFullNotDraining() throws {
        let (doc, html) = SampleReports.stranded
        let renderer = HTMLReportRenderer()
        let (t0, t1) = try #require(renderer.chartSpan(doc))
        let (chart, _) = try #require(try renderer.queueDepthChart(doc, from: t0, to: t1))
        let d = try #require(html.range(of: #"<path class="series-depth" d="([^"]+)""#, options: .regularExpression).map { String(html[$0]) })
        let numbers = d.split(whereSeparator: { !"0123456789.-".contains($0) }).compactMap { Double($0) }
        let points = stride(from: 0, to: numbers.count - 1, by: 2).map { (x: numbers[$0], y: numbers[$0 + 1]) }
        let from = chart.x(try #require(Timestamp.parse("2026-07-24T16:43:30Z")))
        // From the next pixel column on: within one column the line climbs through 397…401.
        let late = points.filter { $0.x >= from.rounded(.down) + 1 }
        #expect(late.count > 5)
        for p in late { #expect(chart.value(atY: p.y) >= 398.5, "drawn at \(chart.value(atY: p.y)) records at x \(p.x)") }
        #expect(try doc.queueDepth.points().filter { $0.time >= Timestamp.parse("2026-07-24T16:43:30Z")! }.allSatisfy { $0.depth >= 399 })
    }

    /// The attempts chart names what happened (a 401 whose refresh failed is not "refresh") and
    /// draws each attempt at the backoff wait that followed it.
    @Test func attemptsChartSaysWhatHappened() throws {
        let (doc, html) = SampleReports.stranded
        let failedRefreshes = doc.attempts.filter { $0.result == .refreshFailed }.count
        #expect(failedRefreshes == 106)
        #expect(html.contains("401/403 → refresh failed: <b>106</b>"))
        #expect(html.contains("401/403 → token refreshed: <b>1</b>"))
        #expect(!html.contains("refresh: <b>"), "the policy's intent is not a result")
        #expect(html.contains(">backoff wait, s</text>"))
        #expect(html.contains("backoff cap 5 min (BGeo policy)"))
        let renderer = HTMLReportRenderer()
        let section = renderer.attemptsChart(doc, from: renderer.chartSpan(doc)!.0, to: renderer.chartSpan(doc)!.1)
        let ys = section.matches(of: /class="att r-refreshFailed" cx="[0-9.]+" cy="([0-9.]+)"/).compactMap { Double($0.output.1) }
        #expect(ys.count == 106)
        // Most failures waited the 300 s cap: they sit on one line, well above the baseline.
        let capY = ys.filter { abs($0 - ys.min()!) < 0.01 }.count
        #expect(capY > 80, "\(capY) of 106 at the top")
        #expect(ys.max()! > ys.min()! + 50)
    }

    /// Evidence lines show a row's data in words, a JSON response body as JSON, never with its
    /// quotes escaped (`{\"error\":…`).
    @Test func evidenceLinesAreReadable() throws {
        let html = SampleReports.stranded.html
        let lists = html.matches(of: /<ul class="evidence">(.*?)<\/ul>/).map { String($0.output.1) }
        #expect(!lists.isEmpty)
        for list in lists { #expect(!list.contains("\\&quot;") && !list.contains("\\\""), "\(list.prefix(300))") }
        #expect(html.contains("http.response · status 401, count 1, ms 101, response {&quot;error&quot;:&quot;token_expired&quot;"))
    }

    @Test func axisMaximumStaysCloseToTheData() {
        #expect(TimeChart.niceMax(441.1) == 500)
        #expect(TimeChart.niceMax(330) == 400)
        #expect(TimeChart.niceMax(1.1) == 1.5)
        #expect(TimeChart.niceMax(68 * 1.1) == 80)
    }
}
