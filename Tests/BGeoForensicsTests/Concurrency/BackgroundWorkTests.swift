import Foundation
import Synchronization
import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct BackgroundWorkTests {
    /// The work runs on another thread while the caller goes on; `wait` may be asked again,
    /// `take` hands over the same value.
    @Test func runsElsewhereAndGivesItsValue() {
        let callerThread = pthread_self()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let work = BackgroundWork { () -> (sum: Int, elsewhere: Bool) in
            started.signal()
            release.wait()  // cannot finish until the caller, still running, lets it
            return ((1...1000).reduce(0, +), pthread_equal(pthread_self(), callerThread) == 0)
        }
        started.wait()
        release.signal()
        #expect(work.wait().sum == 500_500)
        #expect(work.wait().elsewhere)
        #expect(work.take().sum == 500_500)
    }

    final class Tally { var count = 0 }

    /// A non-Sendable value made on the worker is handed over whole by `take` (the compiler
    /// checks the hand-over: the caller never held it while the worker did).
    @Test func handsANonSendableValueOver() {
        let work = BackgroundWork { () -> Tally in
            let tally = Tally()
            for _ in 0..<1000 { tally.count += 1 }
            return tally
        }
        let tally = work.take()
        tally.count += 1
        #expect(tally.count == 1001)
    }

    /// Sees its part released.
    final class Witness: Sendable {
        let released = Mutex(false)
        final class Watched: Sendable {
            let witness: Witness
            init(_ witness: Witness) { self.witness = witness }
            deinit { witness.released.withLock { $0 = true } }
        }
    }

    struct Holder {
        var part: Witness.Watched?
        var count: Int
    }

    /// `modify` moves a part out of the value: once the caller drops it, it is gone, though the
    /// rest of the value stays for `take` (stop 54: a copied part, the queue's coverage of every
    /// gap, lived through the report's whole build beside the timeline's own).
    @Test func aPartMovedOutIsNotKeptBehind() {
        let witness = Witness()
        let work = BackgroundWork { Holder(part: Witness.Watched(witness), count: 1000) }
        do {
            let moved = work.modify { holder in
                defer { holder.part = nil }
                return holder.part
            }
            #expect(moved != nil)
        }
        #expect(witness.released.withLock { $0 }, "the value kept the part it handed over")
        let rest = work.take()
        #expect(rest.part == nil && rest.count == 1000)
    }
}
