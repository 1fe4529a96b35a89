import Foundation
import Synchronization

/// Work running on its own thread from the moment it is made; `take` hands its value over,
/// `wait` shares a `Sendable` one. The one place the project starts a worker thread and joins it.
///
/// The work and its value are *sent* (Swift 6 region checking): whatever the work captures —
/// a second connection to a dump's copy, a spool — belongs to the worker until `take` hands
/// the value back, and the compiler rejects a caller that keeps using it meanwhile.
package final class BackgroundWork<Value>: Sendable {
    private enum Stage {
        case waiting(() -> Value)
        case running
        case done(Value)
        case taken
    }

    private let group = DispatchGroup()
    private let stage: Mutex<Stage>

    package init(_ work: sending @escaping () -> Value) {
        stage = Mutex(.waiting(work))
        group.enter()
        Thread.detachNewThread { [self] in
            // The work runs inside the lock, which no one else takes before `group` is left
            // (`take` and `wait` wait for it first): the work and its value never leave the
            // Mutex's region, which is what lets the compiler check the hand-over.
            stage.withLock { stage in
                guard case .waiting(let work) = stage else { return }
                // Drop the work (and all it captured) before signalling: otherwise this thread
                // held the last reference to what the closure captured — a second connection to
                // a dump's private copy — until after the waiting thread had returned and perhaps
                // called exit(), so the copy's deinit never ran and the folder was left behind
                // (about one successful run in five).
                stage = .running
                stage = .done(work())
            }
            group.leave()
        }
    }

    /// Waits for the work and hands the value over: this object keeps no copy, so the caller
    /// owns it alone and can mutate it in place. Call once.
    package func take() -> sending Value {
        group.wait()
        return stage.withLock { stage -> sending Value in
            guard case .done(let value) = stage else { preconditionFailure("BackgroundWork.take called twice") }
            stage = .taken
            return value
        }
    }
}

extension BackgroundWork where Value: Sendable {
    /// Waits for the work; the value stays here too (it is `Sendable`, so sharing it is safe).
    package func wait() -> Value {
        group.wait()
        return stage.withLock { stage in
            guard case .done(let value) = stage else { preconditionFailure("BackgroundWork.wait after take") }
            return value
        }
    }
}

extension BackgroundWork {
    /// Waits for the work and lets `change` alter its value in place (the value held once, so a
    /// part moved out is not kept here too) and return a `Sendable` fact; the value stays for `take`.
    package func modify<Fact: Sendable>(_ change: @Sendable (inout Value) -> Fact) -> Fact {
        group.wait()
        return stage.withLock { stage in
            guard case .done(var value) = stage else { preconditionFailure("BackgroundWork.modify after take") }
            stage = .running
            let fact = change(&value)
            stage = .done(value)
            return fact
        }
    }
}
