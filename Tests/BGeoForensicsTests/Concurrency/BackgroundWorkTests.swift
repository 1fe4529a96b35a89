import Foundation
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
    /// checks the hand-over: the caller never held it while the worker did); `inspect` reads a
    /// fact of it first without taking it.
    @Test func handsANonSendableValueOverAfterInspectingIt() {
        let work = BackgroundWork { () -> Tally in
            let tally = Tally()
            for _ in 0..<1000 { tally.count += 1 }
            return tally
        }
        #expect(work.inspect { $0.count } == 1000)
        let tally = work.take()
        tally.count += 1
        #expect(tally.count == 1001)
    }
}
