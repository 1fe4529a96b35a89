import BGeoReader

/// How long an engine waits after consecutive failures, as data.
public struct BackoffSchedule: Sendable, Equatable {
    /// Delay after the first failure, seconds.
    public var initial: Double
    /// Growth per further failure.
    public var factor: Double
    /// Upper bound, seconds.
    public var cap: Double
    /// ± fraction of random jitter the engine applies (0.2 = ±20 %). Checkers accept any delay
    /// within the band; re-sync draws from it.
    public var jitter: Double
    /// True when a `Retry-After` header (seconds) replaces the computed delay (LongPing).
    public var honoursRetryAfter: Bool

    public init(initial: Double, factor: Double, cap: Double, jitter: Double = 0, honoursRetryAfter: Bool = false) {
        self.initial = initial
        self.factor = factor
        self.cap = cap
        self.jitter = jitter
        self.honoursRetryAfter = honoursRetryAfter
    }

    /// The nominal delay after `failures` consecutive failures (1 = the first failure).
    public func delay(afterFailures failures: Int) -> Double {
        guard failures >= 1 else { return 0 }
        var value = initial
        var n = 1
        while n < failures, value < cap {
            value *= factor
            n += 1
        }
        return min(cap, value)
    }

    /// The range of delays the engine may legitimately use after `failures` failures.
    public func acceptableRange(afterFailures failures: Int, tolerance: Double = 0.5) -> ClosedRange<Double> {
        let nominal = delay(afterFailures: failures)
        let low = nominal * (1 - jitter) - tolerance
        let high = nominal * (1 + jitter) + tolerance
        return max(0, low)...high
    }

    /// A delay drawn within the jitter band (`unit` in 0…1 from the caller's RNG, so tests can pin it).
    public func jitteredDelay(afterFailures failures: Int, unit: Double) -> Double {
        let nominal = delay(afterFailures: failures)
        return nominal * (1 - jitter + 2 * jitter * unit)
    }

    /// The wait for the next attempt: `Retry-After` (seconds) wins where the engine honours it.
    public func nextDelay(afterFailures failures: Int, retryAfter: Double?, unit: Double = 0.5) -> Double {
        if honoursRetryAfter, let retryAfter, retryAfter >= 0 { return retryAfter }
        return jitteredDelay(afterFailures: failures, unit: unit)
    }

    /// A copy with the base and cap replaced (re-sync's `--backoff-initial/--backoff-max`),
    /// keeping the doubling and jitter.
    public func scaled(initial newInitial: Double?, cap newCap: Double?) -> BackoffSchedule {
        var copy = self
        if let newInitial { copy.initial = newInitial }
        if let newCap { copy.cap = newCap }
        return copy
    }

    /// BGeo: 5 s after the first failure, doubling, capped at 300 s; no jitter; a 2xx resets it.
    public static let bgeo = BackoffSchedule(initial: 5, factor: 2, cap: 300)

    /// LongPing: min(900, 10·2ⁿ) s with n = failures so far (10, 20, 40 … 900), ±20 % jitter,
    /// Retry-After (seconds) wins.
    public static let longping = BackoffSchedule(initial: 10, factor: 2, cap: 900, jitter: 0.2, honoursRetryAfter: true)
}
