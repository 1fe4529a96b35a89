import BGeoForensics
import Foundation

/// One failed attempt, as an operator reads it: which lane, the status (0 = no response), the
/// reason kind and a sentence. A run keeps its last one for the progress line, the summary and
/// `--json`, so "status 0" never stands alone.
public struct ResyncFailure: Sendable, Equatable {
    /// `locations`, `logs` or `refresh`.
    public var lane: String
    public var status: Int
    /// `dns`, `refused`, `tls`, `timeout`, `reset`, `protocol`, `invalid-request`,
    /// `interrupted` (no response), `redirect` (3xx) or `http` (any other status).
    public var reason: String
    /// The cause in one sentence (already redacted).
    public var message: String
    /// A redirect's target, resolved against the request URL (already redacted).
    public var location: String?

    /// The failure of `result` (nil when it is a success).
    public init?(lane: String, request: HTTPRequestSpec, result: HTTPResult, redactor: Redactor) {
        guard !(200...299).contains(result.status) else { return nil }
        self.lane = lane
        status = result.status
        if let failure = result.failure {
            reason = failure.kind.rawValue
            message = redactor.redact(text: failure.message)
        } else if result.isRedirect {
            reason = "redirect"
            let target = result.location.map { ResyncFailure.resolve($0, against: request.url) }
            location = target.map { redactor.redact(text: $0) }
            message = location.map { "the server redirects to \($0) (status \(result.status)); redirects are not followed" }
                ?? "status \(result.status) without a Location header; redirects are not followed"
        } else {
            reason = "http"
            message = "the server answered status \(result.status)"
        }
    }

    /// `Location` may be relative (`/v2/locs`): resolved as a browser would, for the message.
    static func resolve(_ location: String, against url: String) -> String {
        guard let base = URL(string: url), let resolved = URL(string: location, relativeTo: base) else { return location }
        return resolved.absoluteString
    }

    /// The option that names this lane's endpoint, for "run again with …".
    public static func option(forLane lane: String) -> String {
        switch lane {
        case "logs": return "--log-url "
        case "refresh": return "--set authorization.refreshUrl="
        default: return "--url "
        }
    }

    /// The plain sentence a redirect gets: what the server asked, and how to go there on purpose.
    public var redirectAdvice: String? {
        guard reason == "redirect", let location else { return nil }
        let what = lane == "refresh" ? "token refresh endpoint" : (lane == "logs" ? "log endpoint" : "endpoint")
        return "the server redirects to \(location); if that is the right \(what), run again with \(ResyncFailure.option(forLane: lane))\(location)"
    }

    /// For the progress line and backoff notes: `status 503`, `no response (refused: …)`.
    public var short: String {
        status == 0 ? "no response (\(reason): \(message))" : (reason == "redirect" ? "status \(status) (redirect, not followed)" : "status \(status)")
    }

    public var json: JSONValue {
        ["lane": .string(lane), "status": .int(Int64(status)), "reason": .string(reason), "message": .string(message),
         "location": .from(location)]
    }
}
