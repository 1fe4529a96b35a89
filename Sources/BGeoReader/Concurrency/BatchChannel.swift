import Foundation

/// Hands batches from one thread to another, in order: the sender never waits (unless a
/// `capacity` is given: then it waits while that many batches are pending, so a fast producer
/// cannot fill memory), the receiver blocks until a batch arrives or the channel is closed.
/// Lets a scan feed a consumer that runs on another core while the scan goes on. Several
/// senders may share one channel: each says `finish()` when done, and the receiver sees the end
/// after the last one (batches of one sender stay in its order).
package final class BatchChannel<Element: Sendable>: Sendable {
    private struct Queue {
        var pending: [[Element]] = []
        var closed = false
        var sendersLeft: Int
    }
    private let queue: ConditionState<Queue>
    private let capacity: Int

    package init(capacity: Int = .max, senders: Int = 1) {
        self.capacity = max(1, capacity)
        queue = ConditionState(Queue(sendersLeft: max(1, senders)))
    }

    /// Queues a batch (an empty one is dropped). Returns false when the channel was closed (the
    /// receiver gave up: the sender should stop). `alone`: the batch is heavy (a row of many
    /// megabytes), so it waits until the receiver has taken every batch before it: at most one
    /// such batch is held, whatever the capacity.
    @discardableResult
    package func send(_ batch: [Element], alone: Bool = false) -> Bool {
        guard !batch.isEmpty else { return true }
        let capacity = alone ? 1 : capacity
        return queue.change(when: { $0.pending.count < capacity || $0.closed }) { queue in
            guard !queue.closed else { return false }
            queue.pending.append(batch)
            return true
        }
    }

    /// The next batch if one is waiting, without blocking.
    package func poll() -> [Element]? {
        queue.change { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
    }

    /// No more batches will come; a waiting receiver wakes up.
    package func close() {
        queue.change { $0.closed = true }
    }

    /// One sender is done; after the last one the channel is closed.
    package func finish() {
        queue.change { queue in
            queue.sendersLeft -= 1
            if queue.sendersLeft <= 0 { queue.closed = true }
        }
    }

    /// The next batch, in sending order; nil once the channel is closed and drained.
    package func receive() -> [Element]? {
        queue.change(when: { !$0.pending.isEmpty || $0.closed }) { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
    }
}
