import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct ConditionStateTests {
    /// A waiter on another thread wakes when a change makes its condition hold, and sees the
    /// state as the change left it.
    @Test func aWaiterWakesOnTheChangeThatSatisfiesIt() {
        let counter = ConditionState(0)
        let waiter = BackgroundWork { counter.read(when: { $0 >= 3 }) { $0 } }
        for _ in 0..<3 { counter.change { $0 += 1 } }
        #expect(waiter.take() == 3)
    }

    /// Many threads changing the state at once lose no change (the state is under one lock).
    @Test func concurrentChangesAreNotLost() {
        let counter = ConditionState(0)
        let workers = (0..<4).map { _ in BackgroundWork { for _ in 0..<10_000 { counter.change { $0 += 1 } } } }
        for worker in workers { worker.take() }
        #expect(counter.read { $0 } == 40_000)
    }
}
