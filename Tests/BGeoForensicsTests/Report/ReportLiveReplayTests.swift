import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The report's replay follows the trace while the dump is read; when that trace is not the final
/// one (a record spilled, a uuid's copies fell apart), the stored trace is replayed instead. Either
/// way the page is the same.
@Suite struct ReportLiveReplayTests {
    static func build(_ path: String, windows: TraceWindows, followsLiveTrace: Bool = true) throws -> (ReportDocument, String) {
        let dump = try Dump(path: path)
        let doc = try ReportBuilder.build(dump: dump, options: ReportOptions(generatedAt: 1_785_100_000, maxTableRows: 60),
                                          progress: .silent, windows: windows, followsLiveTrace: followsLiveTrace)
        return (doc, HTMLReportRenderer().render(doc))
    }

    @Test func liveAndStoredReplaysDrawTheSamePage() throws {
        // Standard windows: the demo trace is assembled in one live run, which the replay followed
        // (its sketch has no chart series: the axis was not known yet).
        let (live, livePage) = try ReportLiveReplayTests.build(ReportFixture.dumpPath, windows: .standard)
        #expect(live.sketch?.fixBounds != nil)
        #expect(live.sketch?.chartSeries == nil, "the live replay was not used")
        // Not following it: the stored trace is replayed (and the charts' series made on the way).
        let (stored, storedPage) = try ReportLiveReplayTests.build(ReportFixture.dumpPath, windows: .standard, followsLiveTrace: false)
        #expect(stored.sketch?.chartSeries != nil, "the stored trace was not replayed")
        #expect(livePage == storedPage)
        #expect(live.replay.counts.map(\.count) == stored.replay.counts.map(\.count))
        #expect(live.deviceOffsets == stored.deviceOffsets)
        // The page is the one the committed fixture test reads (same options).
        #expect(livePage == ReportFixture.built.html)
    }

    /// A random trace built to defeat every window (copies hours apart, disorder): the live run
    /// is not the trace (a second run merges the uuids apart, records spill), so the replay that
    /// followed it is dropped and the stored trace replayed; the page is the one of a report that
    /// never followed it.
    @Test func droppedLiveReplayGivesTheStoredTracesPage() throws {
        let dir = TestDirectory("report-live-replay")
        let path = dir.file("random.db")
        try RandomTraceDump.write(to: path, seed: 3)
        for windows in [TraceWindows.standard, StreamedTraceTests.small] {
            let (followed, page) = try ReportLiveReplayTests.build(path, windows: windows)
            let (_, reference) = try ReportLiveReplayTests.build(path, windows: windows, followsLiveTrace: false)
            #expect(followed.sketch?.chartSeries != nil, "the live replay was used on a trace it did not see whole")
            #expect(page == reference)
            #expect(page.contains("<svg class=\"map\""))
        }
    }
}
