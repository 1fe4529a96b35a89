import Foundation

/// Hands batches from one thread to another, in order: the sender never waits, the receiver
/// blocks until a batch arrives or the channel is closed. Lets a scan feed a consumer that runs
/// on another core while the scan goes on.
final class BatchChannel<Element>: @unchecked Sendable {
    private var pending: [[Element]] = []
    private var closed = false
    private let condition = NSCondition()

    /// Queues a batch (an empty one is dropped).
    func send(_ batch: [Element]) {
        guard !batch.isEmpty else { return }
        condition.lock()
        pending.append(batch)
        condition.signal()
        condition.unlock()
    }

    /// No more batches will come; a waiting receiver wakes up.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, in sending order; nil once the channel is closed and drained.
    func receive() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !closed { condition.wait() }
        return pending.isEmpty ? nil : pending.removeFirst()
    }
}
