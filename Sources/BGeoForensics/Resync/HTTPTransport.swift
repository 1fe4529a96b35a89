import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What came back from one request. Status 0 means no response (network error, timeout).
public struct HTTPResult: Sendable, Equatable {
    public var status: Int
    /// Response body, or the error's description when status is 0.
    public var body: String
    /// `Retry-After` in seconds (delta-seconds or an HTTP-date), when present.
    public var retryAfter: Double?
    public var milliseconds: Int

    public init(status: Int, body: String, retryAfter: Double? = nil, milliseconds: Int = 0) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        self.milliseconds = milliseconds
    }
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

/// URLSession (libcurl underneath on Linux): one long-lived session, method set explicitly,
/// TLS certificate checks left on (no delegate overrides them).
public final class URLSessionTransport: HTTPSending, @unchecked Sendable {
    private let session: URLSession
    private let timeout: Double

    public init(timeout: Double) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = max(timeout * 2, timeout + 5)
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    deinit { session.finishTasksAndInvalidate() }

    private final class Box: @unchecked Sendable {
        var result = HTTPResult(status: 0, body: "no response")
    }

    public func send(_ request: HTTPRequestSpec) -> HTTPResult {
        send(request, whileWaiting: {})
    }

    public func send(_ request: HTTPRequestSpec, whileWaiting: () -> Void) -> HTTPResult {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            return HTTPResult(status: 0, body: "invalid URL '\(request.url)'")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = Data(request.body)
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        let task = session.dataTask(with: urlRequest) { data, response, error in
            let ms = Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
            if let http = response as? HTTPURLResponse, error == nil {
                let text = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
                let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(URLSessionTransport.parseRetryAfter)
                box.result = HTTPResult(status: http.statusCode, body: text, retryAfter: retryAfter, milliseconds: ms)
            } else {
                box.result = HTTPResult(status: 0, body: error.map { "network error: \($0.localizedDescription)" } ?? "no response",
                                        milliseconds: ms)
            }
            done.signal()
        }
        task.resume()
        whileWaiting()
        done.wait()
        return box.result
    }

    /// `Retry-After: 120` or `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT` → seconds from now.
    public static func parseRetryAfter(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }
}
