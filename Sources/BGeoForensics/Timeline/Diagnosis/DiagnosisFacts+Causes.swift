import BGeoReader

/// Why things failed, who is to blame and what to do: shared by the rules whose findings name a
/// cause (`queue.stranded`, `queue.pruned`, `auth.refresh_failing`).
extension DiagnosisFacts {
    /// Why a queue is stuck, who is to blame and what to do, from the failing statuses since
    /// the last 2xx: the most frequent class of failure names the party.
    struct Cause {
        var reason: String
        var responsible: Responsibility
        var action: String
    }

    /// The cause behind the failures since the last 2xx.
    var strandedCause: Cause {
        var causes: [(count: Int, cause: Cause)] = []
        let statuses = stats.trailingStatuses
        let unauthorized = (statuses[401] ?? 0) + (statuses[403] ?? 0)
        if unauthorized > 0 {
            if !authorizationConfigured {
                let reason: String
                if case .incomplete(let missing) = refreshReadiness {
                    reason = "the server rejects the credentials (401/403) and the app's authorization has no \(missing.joined(separator: " or ")), so the engine cannot refresh them"
                } else {
                    reason = "the server rejects the credentials (401/403) and no token refresh is configured"
                }
                causes.append((unauthorized, Cause(reason: reason, responsible: .appConfig,
                                                   action: "Fix the app's credentials or its authorization config (see auth.no_refresh).")))
            } else if stats.lastRefreshSucceeded == false {
                let refresh = stats.refreshFailingStatuses.isEmpty ? "" : " (refresh status \(statusList(stats.refreshFailingStatuses)))"
                let cause = refreshFailureCause(stats.refreshFailingStatuses.isEmpty ? [0: 1] : stats.refreshFailingStatuses)
                causes.append((unauthorized, Cause(
                    reason: "the access token is rejected (401/403) and the token refresh keeps failing\(refresh), so the queue cannot drain until the app is given new tokens",
                    responsible: cause.responsible, action: cause.action)))
            } else {
                causes.append((unauthorized, Cause(reason: "the server rejects the access token (401/403) even after refreshing it",
                                                   responsible: .server,
                                                   action: "Check why the server refuses the token its own refresh endpoint just issued (audience, clock, revocation).")))
            }
        }
        let network = statuses[0] ?? 0
        if network > 0 {
            causes.append((network, Cause(
                reason: "network errors (no response)" + (connected == false ? "; the device was offline at the last connectivity change" : ""),
                responsible: .device,
                action: "Nothing to fix in the app: the records are safe and upload when the device is back online (if it is online, check the server is reachable from its network).")))
        }
        let server = statuses.filter { (500...599).contains($0.key) }.values.reduce(0, +)
        if server > 0 {
            causes.append((server, Cause(reason: "server errors (5xx)", responsible: .server,
                                         action: "Fix the ingest server (its logs at these times); the records are kept and retried.")))
        }
        let throttled = statuses[429] ?? 0
        if throttled > 0 {
            causes.append((throttled, Cause(reason: "the server is throttling (429)", responsible: .server,
                                            action: "Raise the server's rate limit for this device, or batch uploads (batchSync) in the app's config.")))
        }
        let other = statuses.filter { ![0, 401, 403, 429].contains($0.key) && !(500...599).contains($0.key) }
        if !other.isEmpty {
            causes.append((other.values.reduce(0, +), Cause(reason: "other responses (\(statusList(other)))", responsible: .server,
                                                             action: "Read the server's responses (http.response rows) to see why it refuses these uploads.")))
        }
        guard let primary = causes.enumerated().max(by: { ($0.element.count, -$0.offset) < ($1.element.count, -$1.offset) })?.element.cause else {
            return Cause(reason: "uploads keep failing", responsible: .unknown, action: "Read the http.response rows for the failing status.")
        }
        return Cause(reason: causes.map(\.cause.reason).joined(separator: "; "), responsible: primary.responsible, action: primary.action)
    }

    /// Why token refreshes fail, from the statuses the refresh request itself got: a refresh
    /// token the auth server no longer accepts (401/403, or 400 after refreshes that used to
    /// work: OAuth servers answer a revoked token with 400 invalid_grant), a request it never
    /// accepted (400/422 with no refresh ever succeeding: the app's refreshPayload or
    /// refreshHeaders first), its own errors (5xx) or no network (0).
    func refreshFailureCause(_ statuses: [Int: Int]) -> Cause {
        let total = statuses.values.reduce(0, +)
        let rejected = (statuses[401] ?? 0) + (statuses[403] ?? 0)
        let malformed = (statuses[400] ?? 0) + (statuses[422] ?? 0)
        let serverErrors = statuses.filter { (500...599).contains($0.key) }.values.reduce(0, +)
        let everSucceeded = stats.refreshSuccesses > 0
        let newTokens = "Give the app new tokens: the user signs in again, or the app calls setConfig with a fresh authorization"
        if rejected > 0 || (malformed == total && everSucceeded) {
            return Cause(reason: "The auth server (refreshUrl) rejects the stored refresh token (revoked or expired)",
                         responsible: .server,
                         action: newTokens + "; if the refresh token should still be valid, check the auth server's logs at these rows.")
        }
        if malformed == total {
            return Cause(reason: "The auth server (refreshUrl) refuses every refresh request as invalid (\(statusList(statuses))) and no refresh in this log ever succeeded, so the request the app configured is the first suspect",
                         responsible: .appConfig,
                         action: "Check the app's authorization.refreshPayload and refreshHeaders against what the auth server expects (the payload must carry {refreshToken}); if they match, the refresh token was revoked: " + newTokens.prefix(1).lowercased() + newTokens.dropFirst() + ".")
        }
        if serverErrors == total {
            return Cause(reason: "The auth server (refreshUrl) fails with server errors (\(statusList(statuses)))", responsible: .server,
                         action: "Fix the auth server; the engine keeps retrying and the records stay queued.")
        }
        if (statuses[0] ?? 0) == total {
            return Cause(reason: "The refresh request gets no response (network error)", responsible: .device,
                         action: "Check that the device can reach the refreshUrl; the records stay queued.")
        }
        return Cause(reason: "The auth server (refreshUrl) rejects the refresh request (\(statusList(statuses)))", responsible: .server,
                     action: "Read the auth server's answer at these rows and give the app tokens it accepts.")
    }
}
