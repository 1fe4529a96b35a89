import BGeoForensics
/// The upload settings re-sync sends with, read from an SDK config exactly as the engine reads
/// them (case-insensitive keys, engine defaults for absent keys).
public struct ResyncSettings: Sendable, Equatable {
    /// Endpoint for location batches; nil when the config has none and `--url` was not given.
    public var url: String?
    /// `POST` (default), `PUT` or `PATCH`.
    public var method: String
    /// `headers` from the config, in config order.
    public var headers: [(name: String, value: String)]
    /// `httpRootProperty` (default `"location"`; `"."` merges a single unbatched record into the root).
    public var rootProperty: String
    public var batchSync: Bool
    /// `maxBatchSize`; nil = unlimited (the engine's `-1`).
    public var maxBatchSize: Int?
    /// `params`, merged at the body root.
    public var params: JSONObject
    /// `extras`, merged into each record's `extras` (the record's own keys win).
    public var extras: JSONObject
    /// `httpTimeoutMs` as seconds (default 30).
    public var timeout: Double
    /// `logUrl`, the log lane's endpoint.
    public var logURL: String?
    /// `authorization`, when configured.
    public var authorization: AuthorizationSettings?

    public static func == (lhs: ResyncSettings, rhs: ResyncSettings) -> Bool {
        lhs.url == rhs.url && lhs.method == rhs.method && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value) && lhs.rootProperty == rhs.rootProperty
            && lhs.batchSync == rhs.batchSync && lhs.maxBatchSize == rhs.maxBatchSize && lhs.params == rhs.params
            && lhs.extras == rhs.extras && lhs.timeout == rhs.timeout && lhs.logURL == rhs.logURL
            && lhs.authorization == rhs.authorization
    }

    /// Problems with the config that make a run impossible (reported as bad input, exit 2).
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public init(config: SDKConfig) throws(Invalid) {
        url = config.string("url").flatMap { $0.isEmpty ? nil : $0 }
        let method = (config.string("method") ?? "POST").uppercased()
        guard ["POST", "PUT", "PATCH"].contains(method) else {
            throw Invalid(description: "method '\(method)' is not one the SDK sends (POST, PUT or PATCH)")
        }
        self.method = method
        headers = ResyncSettings.headerList(config["headers"])
        rootProperty = config.string("httpRootProperty").flatMap { $0.isEmpty ? nil : $0 } ?? "location"
        batchSync = config.bool("batchSync") ?? false
        if let size = config.int("maxBatchSize"), size > 0 { maxBatchSize = size } else { maxBatchSize = nil }
        params = config["params"]?.objectValue ?? JSONObject()
        extras = config["extras"]?.objectValue ?? JSONObject()
        let timeoutMs = config.double("httpTimeoutMs") ?? 30_000
        // Capped at what a poll() timeout holds (~24.8 days): a recorded 1e12 trapped the socket layer.
        timeout = timeoutMs > 0 && timeoutMs.isFinite ? min(timeoutMs, Double(Int32.max)) / 1000 : 30
        logURL = config.string("logUrl").flatMap { $0.isEmpty ? nil : $0 }
        authorization = config["authorization"]?.objectValue.map(AuthorizationSettings.init)
    }

    /// Header maps become (name, value) pairs; non-string values are sent as their JSON text,
    /// as the SDK's bridge stringifies them.
    static func headerList(_ value: JSONValue?) -> [(name: String, value: String)] {
        guard let object = value?.objectValue else { return [] }
        return object.compactMap { member in
            switch member.value {
            case .string(let s): return (member.key, s)
            case .null: return nil
            default: return (member.key, member.value.jsonText)
            }
        }
    }

    /// How many records the next request carries (nil = all that remain).
    public var batchLimit: Int? { batchSync ? maxBatchSize : 1 }

    /// The first configured header that cannot be sent (CR, LF, NUL or another control
    /// character; a name that is not a token), with where it is configured; nil when all can.
    /// Checked before anything is sent, whichever source (dump, `--config`, `--set`) it came from.
    public var headerProblem: String? {
        let lists = [("headers", headers), ("authorization.refreshHeaders", authorization?.refreshHeaders ?? [])]
        for (key, list) in lists {
            for header in list {
                if let problem = HTTPHeader(header.name, header.value).problem { return "\(problem) (config \(key))" }
            }
        }
        return nil
    }
}

/// The `authorization` object: JWT tokens and how to refresh them.
public struct AuthorizationSettings: Sendable, Equatable {
    public var strategy: String?
    public var accessToken: String?
    public var refreshToken: String?
    public var refreshURL: String?
    /// The body template sent to `refreshUrl`; nil = `{"refresh_token": "{refreshToken}"}`.
    public var refreshPayload: JSONValue?
    public var refreshHeaders: [(name: String, value: String)]

    public static func == (lhs: AuthorizationSettings, rhs: AuthorizationSettings) -> Bool {
        lhs.strategy == rhs.strategy && lhs.accessToken == rhs.accessToken && lhs.refreshToken == rhs.refreshToken
            && lhs.refreshURL == rhs.refreshURL && lhs.refreshPayload == rhs.refreshPayload
            && lhs.refreshHeaders.map(\.name) == rhs.refreshHeaders.map(\.name)
            && lhs.refreshHeaders.map(\.value) == rhs.refreshHeaders.map(\.value)
    }

    public init(_ object: JSONObject) {
        func text(_ key: String) -> String? { object.valueIgnoringCase(key)?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        strategy = text("strategy")
        accessToken = text("accessToken")
        refreshToken = text("refreshToken")
        refreshURL = text("refreshUrl")
        refreshPayload = object.valueIgnoringCase("refreshPayload").flatMap { $0.isNull ? nil : $0 }
        refreshHeaders = ResyncSettings.headerList(object.valueIgnoringCase("refreshHeaders"))
    }
}
