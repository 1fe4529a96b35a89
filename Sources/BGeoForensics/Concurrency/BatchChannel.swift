import Foundation

/// Hands batches from one thread to another, in order: the sender never waits (unless a
/// `capacity` is given: then it waits while that many batches are pending, so a fast producer
/// cannot fill memory), the receiver blocks until a batch arrives or the channel is closed.
/// Lets a scan feed a consumer that runs on another core while the scan goes on.
package final class BatchChannel<Element>: @unchecked Sendable {
    private var pending: [[Element]] = []
    private var closed = false
    private let condition = NSCondition()
    private let capacity: Int

    package init(capacity: Int = .max) { self.capacity = max(1, capacity) }

    /// Queues a batch (an empty one is dropped). Returns false when the channel was closed (the
    /// receiver gave up: the sender should stop).
    @discardableResult
    package func send(_ batch: [Element]) -> Bool {
        guard !batch.isEmpty else { return true }
        condition.lock()
        defer { condition.unlock() }
        while pending.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        pending.append(batch)
        condition.broadcast()
        return true
    }

    /// The next batch if one is waiting, without blocking.
    package func poll() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        guard !pending.isEmpty else { return nil }
        condition.broadcast()
        return pending.removeFirst()
    }

    /// No more batches will come; a waiting receiver wakes up.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, in sending order; nil once the channel is closed and drained.
    package func receive() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !closed { condition.wait() }
        guard !pending.isEmpty else { return nil }
        condition.broadcast()
        return pending.removeFirst()
    }
}
