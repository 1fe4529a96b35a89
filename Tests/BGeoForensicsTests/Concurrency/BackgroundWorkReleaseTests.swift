import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The cause of the private copies left after successful runs: the worker thread kept the work
/// closure — and the second connection to the copy it captured — until after the waiting thread
/// had its value and perhaps exited. The closure is now dropped before the value is handed over.
@Suite struct BackgroundWorkReleaseTests {
    final class Captured: @unchecked Sendable {}

    @Test func whatTheWorkCapturedIsReleasedBeforeTheValueIsHandedOver() {
        for _ in 0..<200 {
            weak var weakCaptured: Captured?
            let work: BackgroundWork<Int> = {
                let captured = Captured()
                weakCaptured = captured
                return BackgroundWork { [captured] in
                    _ = captured
                    return 7
                }
            }()
            #expect(work.take() == 7)
            #expect(weakCaptured == nil, "the worker thread still holds what its work captured")
            if weakCaptured != nil { return }
        }
    }
}
