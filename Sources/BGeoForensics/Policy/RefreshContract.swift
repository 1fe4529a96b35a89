import BGeoReader
import Foundation

/// How an engine refreshes an expired access token, as data (HTTP upload guide, "Authorization
/// (JWT refresh)"; LongPing queue guide, "Failures"). The timeline checker uses it to decide
/// when a refresh was due; re-sync can use it to refresh the same way the SDK does.
public struct RefreshContract: Sendable, Equatable {
    /// Upload statuses intercepted for a refresh-and-retry (before drop/retry classification).
    public var triggerStatuses: Set<Int>
    /// How many refresh-and-retry rounds one batch gets per attempt: a second 401/403 on the
    /// retried request is not refreshed again, it is classified as `failedRefreshOutcome`.
    public var retriesPerBatch: Int
    /// What the original 401/403 becomes when the refresh request itself fails (non-2xx):
    /// the batch stays queued for the next backoff pass.
    public var failedRefreshOutcome: UploadOutcome
    /// LongPing: with no refresh possible, a 401/403 waits this long (15 min) or for
    /// `setAuthorization()` instead of the normal backoff. nil: the normal backoff applies (BGeo).
    public var waitWithoutRefresh: Double?
    /// Keys the refresh response's access token is read from, first present wins.
    public var accessTokenKeys: [String]
    /// Keys the refresh response's refresh token is read from (kept when absent).
    public var refreshTokenKeys: [String]
    /// The response may nest both under this key.
    public var nestingKey: String?
    /// The request body when `refreshPayload` is unset; `{refreshToken}` is substituted.
    public var defaultPayload: JSONValue
    /// The literal placeholder substituted in `refreshPayload`.
    public var refreshTokenPlaceholder: String

    public init(triggerStatuses: Set<Int>, retriesPerBatch: Int, failedRefreshOutcome: UploadOutcome,
                waitWithoutRefresh: Double?, accessTokenKeys: [String], refreshTokenKeys: [String],
                nestingKey: String?, defaultPayload: JSONValue, refreshTokenPlaceholder: String) {
        self.triggerStatuses = triggerStatuses
        self.retriesPerBatch = retriesPerBatch
        self.failedRefreshOutcome = failedRefreshOutcome
        self.waitWithoutRefresh = waitWithoutRefresh
        self.accessTokenKeys = accessTokenKeys
        self.refreshTokenKeys = refreshTokenKeys
        self.nestingKey = nestingKey
        self.defaultPayload = defaultPayload
        self.refreshTokenPlaceholder = refreshTokenPlaceholder
    }

    /// BGeo: 401/403 → POST refreshUrl once, retry the batch; a failed refresh leaves the 401 as
    /// a retry for the next backoff pass.
    public static let bgeo = RefreshContract(
        triggerStatuses: [401, 403], retriesPerBatch: 1, failedRefreshOutcome: .retry, waitWithoutRefresh: nil,
        accessTokenKeys: ["access_token", "accessToken", "token"], refreshTokenKeys: ["refresh_token", "refreshToken"],
        nestingKey: "data", defaultPayload: ["refresh_token": "{refreshToken}"], refreshTokenPlaceholder: "{refreshToken}")

    /// LongPing: 401/403 → refresh, retried once; otherwise kept until `setAuthorization()` or 15 minutes.
    public static let longping = RefreshContract(
        triggerStatuses: [401, 403], retriesPerBatch: 1, failedRefreshOutcome: .retry, waitWithoutRefresh: 900,
        accessTokenKeys: ["access_token", "accessToken", "token"], refreshTokenKeys: ["refresh_token", "refreshToken"],
        nestingKey: "data", defaultPayload: ["refresh_token": "{refreshToken}"], refreshTokenPlaceholder: "{refreshToken}")

    /// True when `config` has an `authorization` object: the guide's "authorization configured".
    /// The engine then intercepts 401/403 for a refresh (one without a `refreshUrl` simply
    /// fails); without one a 401/403 is retried with the same credentials.
    public static func isConfigured(_ config: SDKConfig) -> Bool {
        guard let authorization = config["authorization"]?.objectValue else { return false }
        return !authorization.isEmpty
    }

    /// True when the authorization names a `refreshUrl` the engine can call.
    public static func hasRefreshURL(_ config: SDKConfig) -> Bool {
        let url = config["authorization"]?.objectValue?.valueIgnoringCase("refreshUrl")?.stringValue ?? ""
        return !url.trimmingCharacters(in: .whitespaces).isEmpty
    }

    /// Whether the engine can refresh on its own, and if not, what the app's config lacks.
    public enum Readiness: Sendable, Equatable {
        /// No `authorization` object: a 401/403 is retried with the same credentials.
        case notConfigured
        /// An `authorization` the engine cannot refresh with: it lacks these (`refreshUrl`,
        /// `refreshToken`). A 401/403 then goes straight to backoff, as documented.
        case incomplete(missing: [String])
        /// `authorization` with a `refreshUrl` and a refresh token: a 401/403 triggers a refresh.
        case ready

        public var canRefresh: Bool { self == .ready }
    }

    /// The readiness of `config`'s authorization. The refresh token may be in the config or in
    /// the engine's stored pair (`state.auth`, rotated by earlier refreshes).
    public static func readiness(_ config: SDKConfig, storedAuth: JSONObject? = nil) -> Readiness {
        guard isConfigured(config) else { return .notConfigured }
        var missing: [String] = []
        if !hasRefreshURL(config) { missing.append("refreshUrl") }
        func token(_ object: JSONObject?) -> Bool {
            let value = object?.valueIgnoringCase("refreshToken")?.stringValue ?? ""
            return !value.trimmingCharacters(in: .whitespaces).isEmpty
        }
        if !token(config["authorization"]?.objectValue), !token(storedAuth) { missing.append("refreshToken") }
        return missing.isEmpty ? .ready : .incomplete(missing: missing)
    }

    /// Reads the rotated pair out of a refresh response body the way the engine does.
    public func tokens(fromResponse body: JSONValue) -> (accessToken: String?, refreshToken: String?) {
        var root = body
        if let nestingKey, let nested = body[nestingKey], nested.objectValue != nil { root = nested }
        func first(_ keys: [String]) -> String? {
            for key in keys { if let value = root[key]?.stringValue, !value.isEmpty { return value } }
            return nil
        }
        return (first(accessTokenKeys), first(refreshTokenKeys))
    }
}

extension UploadPolicy {
    /// The engine's token-refresh rules.
    public var refresh: RefreshContract { engine == .bgeo ? .bgeo : .longping }
}
