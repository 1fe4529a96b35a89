import BGeoForensics
/// What re-sync does after a response, decided purely from the shared `UploadPolicy` (one
/// reading of the SDK's status rules, shared with the timeline checker).
public struct ResyncStateMachine: Sendable {
    public var policy: UploadPolicy
    /// True when `authorization` is configured (401/403 then mean refresh-and-retry).
    public var authorizationConfigured: Bool

    public init(policy: UploadPolicy, authorizationConfigured: Bool) {
        self.policy = policy
        self.authorizationConfigured = authorizationConfigured
    }

    /// Everything the decision depends on.
    public struct Input: Sendable, Equatable {
        /// HTTP status; 0 = network error (no response).
        public var status: Int
        /// Records in the batch just sent.
        public var batchCount: Int
        /// A refresh already ran for this batch since its last backoff (the SDK retries once).
        public var alreadyRefreshed: Bool
        /// Consecutive failures before this response.
        public var failures: Int
        /// `Retry-After` in seconds, when the response had one.
        public var retryAfter: Double?
        /// Counted attempts per record before this response (LongPing's `attempts`).
        public var attempts: [Int]
        /// 0…1 from the caller's RNG, for jitter (pinned in tests).
        public var jitterUnit: Double

        public init(status: Int, batchCount: Int, alreadyRefreshed: Bool = false, failures: Int = 0,
                    retryAfter: Double? = nil, attempts: [Int]? = nil, jitterUnit: Double = 0.5) {
            self.status = status
            self.batchCount = batchCount
            self.alreadyRefreshed = alreadyRefreshed
            self.failures = failures
            self.retryAfter = retryAfter
            self.attempts = attempts ?? Array(repeating: 0, count: batchCount)
            self.jitterUnit = jitterUnit
        }
    }

    public enum Action: Sendable, Equatable {
        /// 2xx: delete the batch; the failure counter resets.
        case deliver
        /// Poison in a multi-record batch: re-send its records one at a time, at once.
        case split
        /// Poison: move the batch (one record after a split) to quarantine.
        case quarantine
        /// 401/403 with authorization: refresh the token, then re-send the same batch at once.
        case refresh
        /// Keep the batch; wait `delay` seconds, then re-send (counts a failure).
        case retry(delay: Double)
        /// LongPing 413: re-send at once with at most `limit` records.
        case halve(limit: Int)
        /// LongPing other 4xx: each record's attempts + 1; quarantine the records at `dropIndices`
        /// (reached the limit), keep the rest and wait `delay` (counts a failure).
        case countAttempts(newAttempts: [Int], dropIndices: [Int], delay: Double)
    }

    /// The delay after one more failure.
    public func backoff(_ input: Input) -> Double {
        policy.backoff.nextDelay(afterFailures: input.failures + 1, retryAfter: input.retryAfter, unit: input.jitterUnit)
    }

    public func decide(_ input: Input) -> Action {
        switch policy.classifier.classify(status: input.status, authorizationConfigured: authorizationConfigured) {
        case .success:
            return .deliver
        case .drop:
            return input.batchCount > 1 && policy.splitDroppedBatch ? .split : .quarantine
        case .refresh:
            return input.alreadyRefreshed ? .retry(delay: backoff(input)) : .refresh
        case .retry:
            return .retry(delay: backoff(input))
        case .halveBatch:
            if input.batchCount > 1 { return .halve(limit: max(1, input.batchCount / 2)) }
            // A lone record cannot be halved further: count it like another 4xx so it cannot
            // wedge the queue forever.
            return countAttempts(input)
        case .countAttempt:
            return countAttempts(input)
        }
    }

    private func countAttempts(_ input: Input) -> Action {
        let limit = policy.maxAttemptsBeforeDrop ?? 3
        let next = input.attempts.map { $0 + 1 }
        let drop = next.indices.filter { next[$0] >= limit }
        return .countAttempts(newAttempts: next, dropIndices: drop, delay: backoff(input))
    }

    /// The log lane (logging guide): 2xx or 4xx mark the batch uploaded; 401/403 with
    /// authorization refresh first (same machinery as locations); 429, 5xx and network errors retry.
    public func decideLog(_ input: Input) -> LogAction {
        let status = input.status
        if (200...299).contains(status) { return .markUploaded }
        if policy.classifier.refreshStatuses.contains(status), authorizationConfigured, !input.alreadyRefreshed {
            return .refresh
        }
        if status == 429 || status == 408 && policy.engine == .longping { return .retry(delay: backoff(input)) }
        if (400...499).contains(status), !policy.classifier.refreshStatuses.contains(status) || !authorizationConfigured {
            return .markUploaded
        }
        return .retry(delay: backoff(input))
    }

    public enum LogAction: Sendable, Equatable {
        case markUploaded
        case refresh
        case retry(delay: Double)
    }
}
