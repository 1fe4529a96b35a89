import Foundation
import Testing
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
}
