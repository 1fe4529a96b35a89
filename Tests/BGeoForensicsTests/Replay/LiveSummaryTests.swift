import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `replay`'s summary follows the trace as it is assembled (`LiveSummary`); when that trace is
/// not the final one (a second run merges a uuid's copies that fell apart, records spill), the
/// stored trace is replayed instead. Either way the summary is `StreamedReplay.summarize`'s.
@Suite struct LiveSummaryTests {
    /// The summaries (and the count of fixes decided differently) as text, for comparison.
    static func text(_ result: (summaries: [ReplaySummary], differences: Int)) -> String {
        result.summaries.map { JSONValue.object($0.summaryObject(top: 10)).jsonText }.joined(separator: "\n") + "\n\(result.differences)"
    }

    static func compare(_ path: String, windows: TraceWindows) throws -> Bool {
        let recorded = ReplayConfiguration.recorded(from: try Dump(path: path))
        var whatIf = recorded
        try whatIf.apply(set: "locationFilterPolicy=Adjust")
        try whatIf.apply(set: "locationFilterMaxAccuracy=20")
        let dump = try Dump(path: path)
        let live = LiveSummary(filters: [recorded.filter, whatIf.filter], top: 10)
        let trace = try TraceBuilder.storedTrace(dump: dump, windows: windows, following: live.feed)
        let followed = try live.summarize(trace, [recorded, whatIf])
        let reference = try StreamedReplay.summarize(TraceBuilder.storedTrace(dump: try Dump(path: path), windows: windows),
                                                     [recorded, whatIf], top: 10)
        #expect(text(followed) == text(reference), "\(path)")
        #expect(followed.summaries[0].fixCount > 0)
        return live.stoodForTheTrace
    }

    @Test func everySampleGivesTheStoredTracesSummary() throws {
        var followed = 0
        for path in SampleReports.paths where try Self.compare(path, windows: .standard) { followed += 1 }
        #expect(followed >= SampleReports.paths.count - 2, "the live pass stood for \(followed) of \(SampleReports.paths.count) samples")
        #expect(try Self.compare(ReportFixture.dumpPath, windows: .standard))
    }

    /// A random trace built to defeat every window: with the small windows its live run is not
    /// the trace, so the pass is dropped and the stored trace replayed — the same summary.
    @Test func aDroppedPassGivesTheStoredTracesSummary() throws {
        let dir = TestDirectory("live-summary")
        let path = dir.file("random.db")
        try RandomTraceDump.write(to: path, seed: 3)
        #expect(try !Self.compare(path, windows: StreamedTraceTests.small), "the pass stood for a trace it did not see whole")
        _ = try Self.compare(path, windows: .standard)
    }
}
