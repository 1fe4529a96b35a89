import Foundation
import Synchronization
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `timeline --json` writes its attempts, gaps and events element by element
/// (`Timeline.streamedJSON`) instead of building the whole tree (issue 27: 183 MB at 1 M fixes
/// on a dump with 20,000 kept attempts). The whole tree stays the definition: on every sample,
/// with and without --findings-only, the streamed document is its bytes.
@Suite struct TimelineStreamedJSONTests {
    /// `blockSize` 3 and 1: the arrays' elements are made on two threads in many blocks (odd
    /// counts leave a last block alone), and still written in order.
    @Test(arguments: [(false, 2048), (true, 2048), (false, 3), (false, 1)])
    func everySampleStreamsTheBytesOfTheWholeTree(findingsOnly: Bool, blockSize: Int) throws {
        let dir = TestDirectory("timeline-streamed-json")
        var attempts = 0
        for path in SampleReports.paths {
            let timeline = TimelineBuilder(dump: try Dump(path: path)).build()
            attempts += timeline.attempts.count
            let document = timeline.streamedJSON(findingsOnly: findingsOnly)
            #expect(document.arrays.count == (findingsOnly ? 0 : 3))
            let text = try StreamedReplayTests.written(dir, "timeline.json") { output in
                try StreamedJSONDocument.write(document.tree, arrays: document.arrays, to: output, blockSize: blockSize)
            }
            let whole = JSONWriter(pretty: true).string(timeline.json(findingsOnly: findingsOnly)) + "\n"
            let same = text == whole  // (not in the expectation: a mismatch would print both documents)
            #expect(same, "\(path): the streamed timeline differs from the whole tree")
        }
        #expect(attempts > 100, "the samples hold too few attempts to prove anything")
    }
}

/// `OrderedBlocks`: blocks made two at a time come back in order, whatever their sizes, and a
/// failing taker still waits for the second thread's block.
@Suite struct OrderedBlocksTests {
    @Test(arguments: [1, 2, 7, 64, 1000])
    func theBlocksComeBackInOrder(blockSize: Int) throws {
        var taken: [UInt8] = []
        try OrderedBlocks.make(count: 999, blockSize: blockSize, apart: { block in
            // The second thread's block is made slower, so a writer that did not wait would see it late.
            usleep(200)
            return block.map { UInt8($0 % 251) }
        }, here: { block in taken += block.map { UInt8($0 % 251) } }, take: { taken += $0 })
        #expect(taken == (0..<999).map { UInt8($0 % 251) })
    }

    @Test func aFailingTakerWaitsForTheSecondThread() {
        struct Stop: Error {}
        let made = Mutex(0)
        #expect(throws: Stop.self) {
            try OrderedBlocks.make(count: 10, blockSize: 5, apart: { block in
                usleep(100_000)  // the second thread's block ends last
                made.withLock { $0 += block.count }
                return []
            }, here: { block in
                made.withLock { $0 += block.count }
                throw Stop()
            }, take: { _ in })
        }
        #expect(made.withLock { $0 } == 10, "the second block's thread was still running when the call returned")
    }
}
