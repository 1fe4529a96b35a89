import Foundation
import Testing
@testable import BGeoForensics

@Suite struct BatchChannelTests {
    /// A sender on one thread, a receiver on another: every batch arrives, in order, and the
    /// receiver stops once the channel is closed and drained.
    @Test func batchesArriveInOrderAcrossThreads() {
        let channel = BatchChannel<Int>()
        let received = UncheckedBox<[Int]>([])
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread {
            while let batch = channel.receive() { received.value += batch }
            done.leave()
        }
        for start in stride(from: 0, to: 10_000, by: 100) { channel.send(Array(start..<start + 100)) }
        channel.send([])
        channel.close()
        done.wait()
        #expect(received.value == Array(0..<10_000))
    }

    @Test func closedEmptyChannelReturnsNil() {
        let channel = BatchChannel<String>()
        channel.send(["a"])
        channel.close()
        #expect(channel.receive() == ["a"])
        #expect(channel.receive() == nil)
    }
}
