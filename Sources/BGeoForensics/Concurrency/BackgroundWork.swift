import Foundation

/// Work running on its own thread from the moment it is made; `wait` gives its value, `take`
/// hands it over. The one place the project starts a worker thread and joins it.
final class BackgroundWork<Value>: @unchecked Sendable {
    private let group = DispatchGroup()
    private var value: Value?

    init(_ work: @escaping () -> Value) {
        let job = UncheckedBox(work)
        group.enter()
        Thread.detachNewThread { [self] in
            value = job.value()
            group.leave()
        }
    }

    /// Waits for the work; the value stays here too.
    func wait() -> Value {
        group.wait()
        return value!
    }

    /// Waits for the work and hands the value over: this object keeps no copy, so the caller
    /// owns it alone and can mutate it in place. Call once.
    func take() -> Value {
        group.wait()
        defer { value = nil }
        return value!
    }
}
