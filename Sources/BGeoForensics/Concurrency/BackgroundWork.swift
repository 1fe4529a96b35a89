import Foundation

/// Work running on its own thread from the moment it is made; `wait` gives its value, `take`
/// hands it over. The one place the project starts a worker thread and joins it.
package final class BackgroundWork<Value>: @unchecked Sendable {
    private let group = DispatchGroup()
    private var value: Value?

    package init(_ work: @escaping () -> Value) {
        let job = UncheckedBox<(() -> Value)?>(work)
        group.enter()
        Thread.detachNewThread { [self] in
            let result = job.value!()
            // Drop the work (and all it captured) before signalling: otherwise this thread held
            // the last reference to what the closure captured — a second connection to a dump's
            // private copy — until after the waiting thread had returned and perhaps called
            // exit(), so the copy's deinit never ran and the folder was left behind (about one
            // successful run in five).
            job.value = nil
            value = result
            group.leave()
        }
    }

    /// Waits for the work; the value stays here too.
    package func wait() -> Value {
        group.wait()
        return value!
    }

    /// Waits for the work and hands the value over: this object keeps no copy, so the caller
    /// owns it alone and can mutate it in place. Call once.
    package func take() -> Value {
        group.wait()
        defer { value = nil }
        return value!
    }
}
