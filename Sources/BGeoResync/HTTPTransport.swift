import BGeoForensics
import Foundation

/// What came back from one request. Status 0 means no response (network error, timeout);
/// `failure` then says why.
public struct HTTPResult: Sendable, Equatable {
    public var status: Int
    /// Response body (at most `HTTPClient.bodyLimit` bytes of it), or the failure's description
    /// when status is 0.
    public var body: String
    /// `Retry-After` in seconds (delta-seconds or an HTTP-date), when present.
    public var retryAfter: Double?
    public var milliseconds: Int
    /// Why there is no response (status 0).
    public var failure: NetworkFailure?
    /// The `Location` header of a 3xx, as sent (never followed).
    public var location: String?
    /// True when the body was longer than the client reads: the rest was discarded.
    public var bodyTruncated: Bool

    public init(status: Int, body: String, retryAfter: Double? = nil, milliseconds: Int = 0, failure: NetworkFailure? = nil,
                location: String? = nil, bodyTruncated: Bool = false) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        self.milliseconds = milliseconds
        self.failure = failure
        self.location = location
        self.bodyTruncated = bodyTruncated
    }

    /// No response, for `failure`.
    public init(_ failure: NetworkFailure, milliseconds: Int = 0) {
        self.init(status: 0, body: "network error: \(failure.message)", milliseconds: milliseconds, failure: failure)
    }

    /// A 3xx: the server wants the request sent elsewhere (which re-sync never does by itself).
    public var isRedirect: Bool { (300...399).contains(status) }
}

/// Why an exchange produced no HTTP response, as a kind a script can switch on and a sentence.
public struct NetworkFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The host name did not resolve.
        case dns
        /// Nothing listens there (connection refused, host or network unreachable).
        case refused
        /// The TLS handshake failed (certificate, protocol); the message says which check.
        case tls
        /// `httpTimeoutMs` passed (connecting, sending, or waiting for / reading the response).
        case timeout
        /// The server reset or closed the connection before a complete response.
        case reset
        /// The server's answer is not HTTP/1.x (or breaks its own framing).
        case `protocol`
        /// The request cannot be sent as it is (an invalid URL or header); nothing left.
        case invalidRequest = "invalid-request"
        /// SIGINT / SIGTERM arrived while the request was in flight: abandoned.
        case interrupted
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// Sends requests; a protocol so the engine can be driven by a scripted fake in unit tests.
public protocol HTTPSending: AnyObject {
    func send(_ request: HTTPRequestSpec) -> HTTPResult
    /// Sends, and runs `whileWaiting` once the request has left (while the server works on it)
    /// and before the response is read, so a caller can prepare its next request meanwhile.
    /// `whileWaiting` must not send anything itself.
    func send(_ request: HTTPRequestSpec, whileWaiting: () -> Void) -> HTTPResult
}

extension HTTPSending {
    /// Transports without a separate write phase: the work simply runs after the exchange.
    public func send(_ request: HTTPRequestSpec, whileWaiting: () -> Void) -> HTTPResult {
        let result = send(request)
        whileWaiting()
        return result
    }
}

/// The `Retry-After` header's two forms.
public enum RetryAfter {
    /// `Retry-After: 120` or `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT` → seconds from now.
    public static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0, seconds.isFinite { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }
}
