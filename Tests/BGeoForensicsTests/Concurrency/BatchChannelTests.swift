import Foundation
import Synchronization
import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct BatchChannelTests {
    /// A sender on one thread, a receiver on another: every batch arrives, in order, and the
    /// receiver stops once the channel is closed and drained.
    @Test func batchesArriveInOrderAcrossThreads() {
        let channel = BatchChannel<Int>()
        let receiver = BackgroundWork { () -> [Int] in
            var received: [Int] = []
            while let batch = channel.receive() { received += batch }
            return received
        }
        for start in stride(from: 0, to: 10_000, by: 100) { channel.send(Array(start..<start + 100)) }
        channel.send([])
        channel.close()
        #expect(receiver.take() == Array(0..<10_000))
    }

    @Test func closedEmptyChannelReturnsNil() {
        let channel = BatchChannel<String>()
        channel.send(["a"])
        channel.close()
        #expect(channel.receive() == ["a"])
        #expect(channel.receive() == nil)
    }

    /// With a capacity, a sender waits while that many batches are pending, and a receiver that
    /// gives up (closes) releases it: `send` then says to stop. What was queued is still drained.
    @Test func aFullChannelHoldsTheSenderUntilTheReceiverCloses() {
        let channel = BatchChannel<Int>(capacity: 1)
        #expect(channel.send([0]))
        // The channel is full and nobody receives: this send can only end by the close below.
        let sender = BackgroundWork { channel.send([1]) }
        usleep(20_000)
        channel.close()
        #expect(sender.take() == false, "a send held by a full channel must fail once the receiver closed")
        #expect(channel.receive() == [0])
        #expect(channel.receive() == nil)
    }

    /// A heavy batch (`alone`) waits until the receiver has taken every batch before it, even
    /// with room in the channel: a piped read then holds one row of many megabytes at a time.
    @Test func aHeavyBatchWaitsForAnEmptyChannel() {
        let channel = BatchChannel<Int>(capacity: 8)
        let sent = Mutex(false)
        #expect(channel.send([0]))
        #expect(channel.send([1]))
        let sender = BackgroundWork { () -> Bool in
            let accepted = channel.send([2], alone: true)
            sent.withLock { $0 = true }
            return accepted
        }
        usleep(50_000)
        // Held while two batches are pending, though the capacity is 8; and while one is.
        #expect(sent.withLock { $0 } == false)
        #expect(channel.poll() == [0])
        usleep(50_000)
        #expect(sent.withLock { $0 } == false)
        #expect(channel.poll() == [1])
        #expect(sender.take())
        #expect(channel.receive() == [2])
        // A light batch after it is queued at once.
        #expect(channel.send([3]))
        #expect(channel.poll() == [3])
    }

    /// Two senders share a channel (sanitize's log and other tables): the receiver gets every
    /// batch, each sender's in its order, and sees the end only after both finished.
    @Test func theEndComesAfterTheLastSenderFinishes() {
        let channel = BatchChannel<Int>(capacity: 2, senders: 2)
        let first = BackgroundWork {
            for start in stride(from: 0, to: 5_000, by: 50) { channel.send(Array(start..<start + 50)) }
            channel.finish()
        }
        var received: [Int] = []
        var second: BackgroundWork<Void>?
        while let batch = channel.receive() {
            received += batch
            // The first sender has finished; the second has not begun: the channel stays open.
            if received.count == 5_000, second == nil {
                first.wait()
                second = BackgroundWork {
                    for start in stride(from: 10_000, to: 12_000, by: 100) { channel.send(Array(start..<start + 100)) }
                    channel.finish()
                }
            }
        }
        second?.wait()
        #expect(received.count == 7_000)
        #expect(received.filter { $0 < 5_000 } == Array(0..<5_000))
        #expect(received.filter { $0 >= 10_000 } == Array(10_000..<12_000))
    }
}
