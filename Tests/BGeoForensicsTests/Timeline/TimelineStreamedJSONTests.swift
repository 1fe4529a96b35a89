import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `timeline --json` writes its attempts, gaps and events element by element
/// (`Timeline.streamedJSON`) instead of building the whole tree (issue 27: 183 MB at 1 M fixes
/// on a dump with 20,000 kept attempts). The whole tree stays the definition: on every sample,
/// with and without --findings-only, the streamed document is its bytes.
@Suite struct TimelineStreamedJSONTests {
    @Test(arguments: [false, true])
    func everySampleStreamsTheBytesOfTheWholeTree(findingsOnly: Bool) throws {
        let dir = TestDirectory("timeline-streamed-json")
        var attempts = 0
        for path in SampleReports.paths {
            let timeline = TimelineBuilder(dump: try Dump(path: path)).build()
            attempts += timeline.attempts.count
            let document = timeline.streamedJSON(findingsOnly: findingsOnly)
            #expect(document.arrays.count == (findingsOnly ? 0 : 3))
            let text = try StreamedReplayTests.written(dir, "timeline.json") { output in
                try StreamedJSONDocument.write(document.tree, arrays: document.arrays, to: output)
            }
            let whole = JSONWriter(pretty: true).string(timeline.json(findingsOnly: findingsOnly)) + "\n"
            let same = text == whole  // (not in the expectation: a mismatch would print both documents)
            #expect(same, "\(path): the streamed timeline differs from the whole tree")
        }
        #expect(attempts > 100, "the samples hold too few attempts to prove anything")
    }
}
