import Foundation
import Synchronization

/// State that threads change and wait on: a condition variable with its state in a `Mutex`, so
/// Swift 6 checks what crosses threads instead of trusting a lock beside plain variables. The
/// Mutex is only ever taken under the condition's lock (it never contends); it is what makes
/// the type `Sendable` without `@unchecked`. Every change wakes every waiter.
package final class ConditionState<State: Sendable>: Sendable {
    private let condition = NSCondition()
    private let state: Mutex<State>

    package init(_ initial: State) { state = Mutex(initial) }

    /// Reads the state.
    package func read<Result: Sendable>(_ body: (State) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return state.withLock { body($0) }
    }

    /// Changes the state and wakes the waiters.
    @discardableResult
    package func change<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return state.withLock { body(&$0) }
    }

    /// Waits until `ready` holds, then changes the state (waking the other waiters).
    package func change<Result: Sendable>(when ready: (State) -> Bool, _ body: (inout State) -> Result) -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !state.withLock({ ready($0) }) { condition.wait() }
        return state.withLock { body(&$0) }
    }

    /// Waits until `ready` holds, then reads the state.
    package func read<Result: Sendable>(when ready: (State) -> Bool, _ body: (State) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        while !state.withLock({ ready($0) }) { condition.wait() }
        return state.withLock { body($0) }
    }
}
