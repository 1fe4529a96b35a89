import BGeoReader

/// A documented upload rule the timeline checks the engine's own log against. Each broken
/// rule becomes a `policy.violation` finding naming it.
public enum PolicyRule: String, Sendable, CaseIterable {
    /// A status the policy retries (429, 5xx, network error, 401/403) answered by `queue.drop`.
    case retryableDropped = "retryable-dropped"
    /// BGeo: a poison response to a multi-record batch must be followed by one-at-a-time
    /// re-sends, so only the poison record is dropped.
    case poisonNotSplit = "poison-not-split"
    /// An `http.backoff` delay outside the schedule for its failure count.
    case backoffSchedule = "backoff-schedule"
    /// A 401/403 with authorization configured must trigger a token refresh before the next
    /// attempt or backoff.
    case refreshSkipped = "refresh-skipped"
    /// A successful token refresh is followed at once by the retry of the original request with
    /// the new token; a backoff belongs to the refresh-failure branch.
    case refreshNotRetried = "refresh-not-retried"
    /// A 2xx resets the consecutive-failure counter: the next `http.backoff` says failures 1.
    case successNoReset = "success-no-reset"
    /// LongPing: a 413 is answered by re-sending at once with half the batch (at least one record).
    case batchNotHalved = "batch-not-halved"
    /// LongPing: a record is deleted at its third counted attempt (another 4xx), so none stays
    /// queued with that many.
    case keptAfterAttempts = "kept-after-attempts"

    /// The rule in plain words, as the SDK guides state it.
    public var statement: String {
        switch self {
        case .retryableDropped: return "a retryable response (429, 5xx, network error, 401/403) keeps the records queued for retry; only poison statuses drop them"
        case .poisonNotSplit: return "a batch answered by a poison status is re-sent one record at a time, so only the poison record is dropped"
        case .backoffSchedule: return "the wait after a failure follows the documented backoff schedule"
        case .refreshSkipped: return "a 401/403 with authorization configured triggers a token refresh before the batch is retried"
        case .refreshNotRetried: return "a successful token refresh is followed at once by the retry of the original request with the new token (backoff belongs to a failed refresh)"
        case .successNoReset: return "a 2xx resets the consecutive-failure counter, so the next backoff starts again at failure 1"
        case .batchNotHalved: return "a 413 (payload too large) is answered at once by re-sending with half the batch (at least one record)"
        case .keptAfterAttempts: return "a record answered by another 4xx is deleted at its third counted attempt (logged as dropped)"
        }
    }

    /// Dropping good records and never refreshing lose or strand data; timing slips do not.
    public var severity: Severity {
        switch self {
        case .retryableDropped, .poisonNotSplit, .refreshSkipped, .batchNotHalved: return .error
        // A refresh not retried delays the batch to the next pass; nothing is lost.
        case .backoffSchedule, .successNoReset, .keptAfterAttempts, .refreshNotRetried: return .warning
        }
    }
}

/// The pure checks behind each rule, for one policy (no I/O: unit-testable).
public struct PolicyRules: Sendable {
    public let policy: UploadPolicy

    public init(policy: UploadPolicy) { self.policy = policy }

    /// True when records dropped after `status` would break the policy (the status is one the
    /// engine must retry). nil status (unknown) is never a violation.
    public func dropIsViolation(status: Int?, authorizationConfigured: Bool) -> Bool {
        guard let status else { return false }
        switch policy.classifier.classify(status: status, authorizationConfigured: authorizationConfigured) {
        case .drop, .countAttempt: return false
        case .success, .retry, .refresh, .halveBatch: return true
        }
    }

    /// After `status` answered a batch of `count`, the most records the next request may carry,
    /// when the policy halves batches on that status (LongPing 413); nil when it does not.
    /// "Half" is read generously (rounded up), so only a batch that did not shrink is flagged.
    public func halvedBatchLimit(status: Int, count: Int, authorizationConfigured: Bool) -> Int? {
        guard policy.classifier.classify(status: status, authorizationConfigured: authorizationConfigured) == .halveBatch,
              count > 1 else { return nil }
        return (count + 1) / 2
    }

    /// True when a record still queued with `attempts` counted 4xx answers should have been deleted.
    public func attemptsAreOverLimit(_ attempts: Int) -> Bool {
        guard let limit = policy.maxAttemptsBeforeDrop else { return false }
        return attempts >= limit
    }

    /// True when dropping `uuidCount` records at once breaks the split rule.
    public func dropIsUnsplit(uuidCount: Int) -> Bool {
        policy.splitDroppedBatch && uuidCount > 1
    }

    /// The delays the engine may legitimately wait after `failures` consecutive failures, given
    /// the last response: a `Retry-After` (LongPing) or a 401/403 nobody can refresh (LongPing
    /// waits 15 minutes) also explain a delay.
    public func backoffIsAcceptable(failures: Int, delay: Double, retryAfter: Double?, lastStatus: Int?,
                                    authorizationConfigured: Bool) -> Bool {
        guard failures >= 1, delay.isFinite else { return true }
        if policy.backoff.acceptableRange(afterFailures: failures).contains(delay) { return true }
        if policy.backoff.honoursRetryAfter, let retryAfter, abs(delay - retryAfter) <= 0.5 { return true }
        if let wait = policy.refresh.waitWithoutRefresh, let lastStatus,
           policy.refresh.triggerStatuses.contains(lastStatus), abs(delay - wait) <= 0.5 {
            return true
        }
        return false
    }

    /// The schedule's delay in words: "20 s" or "16–24 s" with jitter.
    public func expectedDelayText(failures: Int) -> String {
        let nominal = policy.backoff.delay(afterFailures: failures)
        guard policy.backoff.jitter > 0 else { return DurationFormat.short(nominal) }
        let low = nominal * (1 - policy.backoff.jitter)
        let high = nominal * (1 + policy.backoff.jitter)
        return DurationFormat.short(low) + "–" + DurationFormat.short(high)
    }
}
