import BGeoForensics
/// The JWT refresh of the HTTP upload guide, as pure functions: the request to `refreshUrl`
/// and the tolerant reading of its response.
public enum TokenRefresh {
    /// The pair the uploader holds (like `getAuthState()`).
    public struct Tokens: Sendable, Equatable {
        public var accessToken: String?
        public var refreshToken: String?
        public init(accessToken: String?, refreshToken: String?) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
        }
    }

    /// POST refreshUrl with `refreshPayload` (the literal `{refreshToken}` substituted in every
    /// string), `refreshHeaders` and Content-Type. Default payload `{"refresh_token":"<token>"}`.
    public static func request(_ authorization: AuthorizationSettings, refreshToken: String?) -> HTTPRequestSpec? {
        guard let url = authorization.refreshURL else { return nil }
        let template = authorization.refreshPayload ?? ["refresh_token": "{refreshToken}"]
        let payload = substitute(template, token: refreshToken ?? "")
        var headers = [HTTPHeader("Content-Type", "application/json")]
        for header in authorization.refreshHeaders where header.name.lowercased() != "content-type" {
            headers.append(HTTPHeader(header.name, header.value))
        }
        return HTTPRequestSpec(method: "POST", url: url, headers: headers, body: Array(payload.jsonText.utf8))
    }

    static func substitute(_ value: JSONValue, token: String) -> JSONValue {
        switch value {
        case .string(let s): return .string(s.replacingOccurrences(of: "{refreshToken}", with: token))
        case .object(let object):
            return .object(JSONObject(object.map { (key: $0.key, value: substitute($0.value, token: token)) }))
        case .array(let elements): return .array(elements.map { substitute($0, token: token) })
        default: return value
        }
    }

    /// Reads a refresh response: access token from `access_token` | `accessToken` | `token`,
    /// refresh token from `refresh_token` | `refreshToken`, at the top level or under `data`.
    /// The old refresh token is kept unless a non-empty new one arrives. Nil when the body holds
    /// no access token (the refresh counts as failed).
    public static func parseResponse(_ body: String, previous: Tokens) -> Tokens? {
        guard let root = (try? JSONParser.parse(body))?.objectValue else { return nil }
        var scopes = [root]
        if let data = root["data"]?.objectValue { scopes.append(data) }
        func first(_ keys: [String]) -> String? {
            for scope in scopes {
                for key in keys {
                    if let s = scope[key]?.stringValue, !s.isEmpty { return s }
                }
            }
            return nil
        }
        guard let access = first(["access_token", "accessToken", "token"]) else { return nil }
        let refresh = first(["refresh_token", "refreshToken"]) ?? previous.refreshToken
        return Tokens(accessToken: access, refreshToken: refresh)
    }
}
