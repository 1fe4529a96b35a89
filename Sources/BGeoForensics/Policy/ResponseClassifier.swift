import BGeoReader

/// What an upload engine does with a batch after a response.
public enum UploadOutcome: String, Sendable, Equatable, CaseIterable {
    /// 2xx: the records are deleted from the queue and the failure counter resets.
    case success
    /// Poison: the records are dropped (a multi-record batch is first re-sent one at a time).
    case drop
    /// Transient: the batch stays queued and is retried after the backoff delay.
    case retry
    /// 401/403 with authorization configured: refresh the token, then retry the same batch.
    case refresh
    /// LongPing 413: retry at once with half the batch.
    case halveBatch
    /// LongPing "other 4xx": count an attempt on each record; drop a record at the limit.
    case countAttempt
}

/// A status → outcome table, as data. One value per engine; the timeline checker and re-sync
/// both classify through it, so there is exactly one reading of the SDK's rules.
public struct ResponseClassifier: Sendable, Equatable {
    /// Explicit statuses, checked first.
    public var exact: [Int: UploadOutcome]
    /// Statuses intercepted for a token refresh when authorization is configured.
    public var refreshStatuses: Set<Int>
    /// What a refresh status becomes when no authorization is configured.
    public var refreshFallback: UploadOutcome
    /// Outcome for other 4xx.
    public var other4xx: UploadOutcome
    /// Outcome for anything else: 5xx, 1xx/3xx and status 0 (network error).
    public var otherwise: UploadOutcome

    public init(exact: [Int: UploadOutcome], refreshStatuses: Set<Int>, refreshFallback: UploadOutcome,
                other4xx: UploadOutcome, otherwise: UploadOutcome) {
        self.exact = exact
        self.refreshStatuses = refreshStatuses
        self.refreshFallback = refreshFallback
        self.other4xx = other4xx
        self.otherwise = otherwise
    }

    /// Classifies a status (0 = network error, no response).
    public func classify(status: Int, authorizationConfigured: Bool) -> UploadOutcome {
        if (200...299).contains(status) { return .success }
        if refreshStatuses.contains(status) { return authorizationConfigured ? .refresh : refreshFallback }
        if let outcome = exact[status] { return outcome }
        if (400...499).contains(status) { return other4xx }
        return otherwise
    }

    /// BGeo (HTTP upload guide): 400/404/410/413/422 poison; 429 retry; 401/403 refresh when
    /// authorization is configured, else retry; everything else and status 0 retry.
    public static let bgeo = ResponseClassifier(
        exact: [400: .drop, 404: .drop, 410: .drop, 413: .drop, 422: .drop, 429: .retry],
        refreshStatuses: [401, 403], refreshFallback: .retry, other4xx: .retry, otherwise: .retry)

    /// LongPing (queue guide): 401/403 refresh (retried once); 413 halve the batch;
    /// 408/429/5xx/network retry after backoff; other 4xx count an attempt, dropped at 3.
    public static let longping = ResponseClassifier(
        exact: [408: .retry, 413: .halveBatch, 429: .retry],
        refreshStatuses: [401, 403], refreshFallback: .retry, other4xx: .countAttempt, otherwise: .retry)
}
