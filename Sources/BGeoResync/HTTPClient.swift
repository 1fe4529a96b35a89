import BGeoForensics
import Foundation

/// The HTTP/1.1 client of re-sync, for `http://` and `https://` alike: one keep-alive
/// connection, the request written in one send, Content-Length, chunked or read-to-close
/// responses. Both schemes share every rule that protects a customer's credentials:
/// - no redirect is ever followed: a 3xx is just a status (with its `Location`), so a request
///   and its Authorization header reach exactly the origin it names;
/// - one deadline (`httpTimeoutMs`) bounds connect, TLS handshake, sending and the whole
///   response, so a server that trickles its answer is cut like one that never answers;
/// - at most `bodyLimit` bytes of a response body are kept; past that the rest is discarded
///   and the connection closed, so memory stays flat whatever a server sends;
/// - a header whose name or value could split the request (CR, LF, NUL) is refused before
///   anything is written;
/// - a response counts only for the request it answers: the connection is kept only after a 2xx
///   that ended where its framing said, and reused only while nothing waits unread on it
///   (`ConnectionReuse`), so a stray response is never taken for the next request's answer.
/// TLS is OpenSSL (`TLSConnection`) with certificate and host-name checks always on.
///
/// Why not URLSession: on Linux (libcurl underneath) it follows redirects to any origin with
/// the request's headers, ignores the timeout for trickling bodies, buffers bodies whole, and
/// silently re-sends a request when a keep-alive connection is dropped.
public final class HTTPClient: HTTPSending {
    /// Bytes of a response body kept (the SDK itself keeps 1024 characters; a refresh
    /// response's tokens need more).
    public static let bodyLimit = 64 * 1024
    /// Bytes of a response's status line and headers accepted.
    public static let headLimit = 64 * 1024

    private let timeout: Double
    private let bodyLimit: Int
    private let interrupt: InterruptSignal?
    private var connection: (link: HTTPConnection, key: String, lastUsed: Double)?
    private let addresses = SocketConnection.AddressCache()
    private var tlsContext: TLSContext?
    /// A connection idle longer than this is replaced before sending: servers close idle
    /// keep-alive connections, and a request written into one would fail for no reason.
    private let maxIdle = 2.0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// `interrupt`: a signal abandons a request not yet sent and gives one already sent a
    /// short grace to be answered (`ExchangeDeadline.interruptGrace`).
    public init(timeout: Double, bodyLimit: Int = HTTPClient.bodyLimit, interrupt: InterruptSignal? = nil) {
        self.timeout = timeout
        self.bodyLimit = bodyLimit
        self.interrupt = interrupt
        // OpenSSL writes to its socket with write(2): a peer that has gone must be an error
        // (EPIPE, journaled as a reset), not a signal that ends the process.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { closeConnection() }

    private func closeConnection() {
        connection?.link.close()
        connection = nil
    }

    /// Where a URL points.
    struct Target: Equatable {
        var tls: Bool
        var host: String
        var port: Int
        var pathAndQuery: String
        var hostHeader: String
        var key: String { "\(tls ? "https" : "http")://\(host):\(port)" }
    }

    static func target(_ text: String) -> Target? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else { return nil }
        let tls = scheme == "https"
        let port = components.port ?? (tls ? 443 : 80)
        guard (1...65_535).contains(port) else { return nil }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let hostHeader = (bareHost.contains(":") ? "[\(bareHost)]" : bareHost) + (components.port.map { ":\($0)" } ?? "")
        return Target(tls: tls, host: bareHost, port: port, pathAndQuery: path, hostHeader: hostHeader)
    }

    /// The parsed URL and the request head up to (not including) Content-Length, for the last
    /// URL and header list: a drain sends thousands of requests to one URL with the same headers,
    /// and URLComponents plus header formatting cost more than the socket I/O of a small batch.
    private var cachedHead: (url: String, method: String, headers: [HTTPHeader], target: Target, head: [UInt8])?
    /// Reused between requests (head + body go out in one send).
    private var outgoing: [UInt8] = []

    /// Whether `request` has the cached head's URL, method and headers byte for byte (`ExactText`):
    /// `String ==` is canonical equivalence, and the head carries bytes (stop 56: a header spelled
    /// precomposed went out with the decomposed spelling sent before it).
    private static func sameBytes(_ cached: (url: String, method: String, headers: [HTTPHeader], target: Target, head: [UInt8]),
                                  _ request: HTTPRequestSpec) -> Bool {
        ExactText(cached.url) == ExactText(request.url) && ExactText(cached.method) == ExactText(request.method)
            && cached.headers.count == request.headers.count
            && zip(cached.headers, request.headers).allSatisfy { ExactText($0.name) == ExactText($1.name) && ExactText($0.value) == ExactText($1.value) }
    }

    public func send(_ request: HTTPRequestSpec) -> HTTPResult {
        send(request, whileWaiting: {})
    }

    /// Writes the request, runs `whileWaiting` while the server works on it, then reads the
    /// response. `whileWaiting` runs only once the whole request is written.
    public func send(_ request: HTTPRequestSpec, whileWaiting: () -> Void) -> HTTPResult {
        let start = HTTPClock.now()
        func elapsed() -> Int { Int((HTTPClock.now() - start) * 1000) }
        var deadline = ExchangeDeadline(end: start + timeout, interrupt: interrupt)
        if interrupt?.received != nil {
            return HTTPResult(.interrupted("before the request was sent"))
        }
        let target: Target
        let head: [UInt8]
        if let cached = cachedHead, HTTPClient.sameBytes(cached, request) {
            target = cached.target
            head = cached.head
        } else {
            guard let parsed = HTTPClient.target(request.url) else {
                return HTTPResult(NetworkFailure(.invalidRequest, "'\(request.url)' is not an http:// or https:// URL; nothing was sent"))
            }
            if let problem = request.headers.lazy.compactMap(\.problem).first {
                return HTTPResult(NetworkFailure(.invalidRequest, problem + "; nothing was sent"))
            }
            var text = "\(request.method) \(parsed.pathAndQuery) HTTP/1.1\r\nHost: \(parsed.hostHeader)\r\n"
            for header in request.headers where !["host", "content-length", "connection", "transfer-encoding"].contains(header.name.lowercased()) {
                text += "\(header.name): \(header.value)\r\n"
            }
            target = parsed
            head = Array(text.utf8)
            cachedHead = (request.url, request.method, request.headers, parsed, head)
        }
        if let c = connection, !ConnectionReuse.reuseBeforeRequest(sameOrigin: c.key == target.key, idleSeconds: start - c.lastUsed,
                                                                 maxIdle: maxIdle, pending: c.link.pendingInput()) {
            closeConnection()
        }
        if connection == nil {
            switch open(target, deadline: &deadline) {
            case .success(let link): connection = (link, target.key, start)
            case .failure(let failure): return HTTPResult(failure, milliseconds: elapsed())
            }
        }
        guard let link = connection?.link else { return HTTPResult(NetworkFailure(.reset, "no connection")) }
        outgoing.removeAll(keepingCapacity: true)
        outgoing.append(contentsOf: head)
        outgoing.append(contentsOf: "Content-Length: \(request.body.count)\r\nConnection: keep-alive\r\n\r\n".utf8)
        outgoing.append(contentsOf: request.body)
        deadline.phase = "while sending the request"
        if let failure = outgoing.withUnsafeBytes({ link.write($0, deadline: &deadline) }) {
            closeConnection()
            return HTTPResult(failure, milliseconds: elapsed())
        }
        whileWaiting()
        deadline.phase = "while waiting for the response"
        switch readResponse(link, deadline: &deadline) {
        case .failure(let failure):
            closeConnection()
            return HTTPResult(failure, milliseconds: elapsed())
        case .success(let response):
            if ConnectionReuse.keepAfterResponse(status: response.status, closeSignalled: response.close,
                                                 bodyCut: response.truncated, unreadBytes: response.unread) {
                connection?.lastUsed = HTTPClock.now()
            } else {
                closeConnection()
            }
            let retryAfter = response.headers["retry-after"].flatMap(RetryAfter.seconds)
            return HTTPResult(status: response.status, body: String(decoding: response.body, as: UTF8.self),
                              retryAfter: retryAfter, milliseconds: elapsed(),
                              location: (300...399).contains(response.status) ? response.headers["location"] : nil,
                              bodyTruncated: response.truncated)
        }
    }

    private func open(_ target: Target, deadline: inout ExchangeDeadline) -> Result<HTTPConnection, NetworkFailure> {
        deadline.phase = "while connecting"
        let socket: SocketConnection
        switch SocketConnection.open(host: target.host, port: target.port, addresses: addresses, timeout: timeout, deadline: &deadline) {
        case .failure(let failure): return .failure(failure)
        case .success(let opened): socket = opened
        }
        guard target.tls else { return .success(socket) }
        if tlsContext == nil { tlsContext = TLSContext() }
        guard let context = tlsContext else {
            socket.close()
            return .failure(NetworkFailure(.tls, "cannot set up TLS (OpenSSL refused to make a client context)"))
        }
        return TLSConnection.open(socket, host: target.host, context: context, deadline: &deadline).map { $0 }
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// The server closes the connection (it said so, it is HTTP/1.0 without keep-alive, or
        /// the body ran to the end of the connection).
        var close: Bool
        /// The body was longer than the limit and its rest left unread.
        var truncated: Bool
        /// Bytes read past the end the response's framing gave it: nobody asked for them.
        var unread: Int
    }

    /// Received bytes not yet consumed, with a read position (no shifting per line).
    private struct Incoming {
        var bytes: [UInt8] = []
        var start = 0
        var closed = false
        var count: Int { bytes.count - start }

        mutating func consume(_ n: Int) {
            start += n
            if start == bytes.count {
                bytes.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 32 * 1024 {
                bytes.removeFirst(start)
                start = 0
            }
        }

        /// Offset (from `start`) of the first `needle`.
        func find(_ needle: [UInt8], from offset: Int = 0) -> Int? {
            guard count >= needle.count else { return nil }
            var i = start + offset
            let last = bytes.count - needle.count
            while i <= last {
                if bytes[i] == needle[0] {
                    var match = true
                    for j in 1..<needle.count where bytes[i + j] != needle[j] { match = false; break }
                    if match { return i - start }
                }
                i += 1
            }
            return nil
        }

        subscript(range: Range<Int>) -> ArraySlice<UInt8> { bytes[(start + range.lowerBound)..<(start + range.upperBound)] }
    }

    /// Reads one response; a peer that closes before a complete response is a network error.
    private func readResponse(_ link: HTTPConnection, deadline: inout ExchangeDeadline) -> Result<Response, NetworkFailure> {
        var data = Incoming()
        let peer = connection?.key ?? "the server"
        func fill() -> NetworkFailure? {
            let result = buffer.withUnsafeMutableBytes { link.read(into: $0, deadline: &deadline) }
            switch result {
            case .failure(let failure): return failure
            case .success(0): data.closed = true
            case .success(let n): data.bytes.append(contentsOf: buffer[0..<n])
            }
            return nil
        }
        func truncated(_ what: String) -> NetworkFailure {
            NetworkFailure(.reset, "\(peer) closed the connection in the middle of the \(what)")
        }
        while true {
            // Status line and headers.
            var headEnd: Int?
            var searched = 0
            while headEnd == nil {
                headEnd = data.find([13, 10, 13, 10], from: searched)
                if headEnd != nil { break }
                searched = max(0, data.count - 3)
                if data.count > HTTPClient.headLimit {
                    return .failure(NetworkFailure(.protocol, "\(peer) sent a response head larger than \(HTTPClient.headLimit / 1024) KiB"))
                }
                if data.closed {
                    return .failure(data.count == 0
                        ? NetworkFailure(.reset, "\(peer) closed the connection without answering")
                        : truncated("response head"))
                }
                if let error = fill() { return .failure(error) }
            }
            let end = headEnd!
            guard let head = HTTPClient.parseHead(data[0..<end]) else {
                return .failure(NetworkFailure(.protocol, "\(peer) did not answer with HTTP/1.x"))
            }
            data.consume(end + 4)
            if (100...199).contains(head.status) { continue }  // 100 Continue and friends: the real answer follows
            deadline.phase = "while reading the response body"
            let headers = head.headers
            var close = headers["connection"]?.lowercased() == "close"
                || (head.http10 && headers["connection"]?.lowercased() != "keep-alive")
            var body: [UInt8] = []
            var cut = false
            /// Keeps at most `bodyLimit` bytes; false once the limit is reached.
            func keep(_ slice: ArraySlice<UInt8>) -> Bool {
                let room = bodyLimit - body.count
                if slice.count > room {
                    body.append(contentsOf: slice.prefix(room))
                    cut = true
                    return false
                }
                body.append(contentsOf: slice)
                return true
            }
            /// Reads the next `count` body bytes, keeping what fits; stops early at the limit.
            func pass(_ count: Int, _ what: String) -> NetworkFailure? {
                var left = count
                while left > 0 {
                    if data.count == 0 {
                        if data.closed { return truncated(what) }
                        if let error = fill() { return error }
                        continue
                    }
                    let take = min(left, data.count)
                    let kept = keep(data[0..<take])
                    data.consume(take)
                    left -= take
                    if !kept { return nil }
                }
                return nil
            }
            if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                chunks: while true {
                    var lineEnd = data.find([13, 10])
                    while lineEnd == nil {
                        if data.count > 1024 { return .failure(NetworkFailure(.protocol, "\(peer) sent a chunk-size line longer than 1 KiB")) }
                        if data.closed { return .failure(truncated("chunked body")) }
                        if let error = fill() { return .failure(error) }
                        lineEnd = data.find([13, 10])
                    }
                    let sizeText = String(decoding: data[0..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
                    let digits = sizeText.trimmingCharacters(in: .whitespaces)
                    guard digits.count <= 15, let size = Int(digits, radix: 16), size >= 0 else {
                        return .failure(NetworkFailure(.protocol, "\(peer) sent a bad chunk size '\(digits.prefix(20))'"))
                    }
                    data.consume(lineEnd! + 2)
                    if size == 0 {
                        // Trailer lines, up to the empty line that ends the message.
                        var trailerBytes = 0
                        while true {
                            guard let e = data.find([13, 10]) else {
                                if data.closed { break }
                                if data.count > HTTPClient.headLimit {
                                    return .failure(NetworkFailure(.protocol, "\(peer) sent trailers larger than \(HTTPClient.headLimit / 1024) KiB"))
                                }
                                if let error = fill() { return .failure(error) }
                                continue
                            }
                            data.consume(e + 2)
                            trailerBytes += e + 2
                            if e == 0 { break }
                            if trailerBytes > HTTPClient.headLimit {
                                return .failure(NetworkFailure(.protocol, "\(peer) sent trailers larger than \(HTTPClient.headLimit / 1024) KiB"))
                            }
                        }
                        break chunks
                    }
                    if let error = pass(size, "chunked body") { return .failure(error) }
                    if cut { break chunks }
                    while data.count < 2 {
                        if data.closed { return .failure(truncated("chunked body")) }
                        if let error = fill() { return .failure(error) }
                    }
                    data.consume(2)
                }
            } else if let lengthText = headers["content-length"] {
                guard !lengthText.isEmpty, lengthText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), lengthText.count <= 18,
                      let length = Int(lengthText) else {
                    return .failure(NetworkFailure(.protocol, "\(peer) sent a bad Content-Length '\(lengthText.prefix(20))'"))
                }
                if let error = pass(length, "response body") { return .failure(error) }
            } else if head.status == 204 || head.status == 304 {
                body = []
            } else {
                // Body runs to the end of the connection.
                close = true
                while true {
                    if data.count > 0 {
                        let kept = keep(data[0..<data.count])
                        data.consume(data.count)
                        if !kept { break }
                    }
                    if data.closed { break }
                    if let error = fill() { return .failure(error) }
                }
            }
            // The unread rest of a long body is dropped with the connection.
            return .success(Response(status: head.status, headers: headers, body: body, close: close || data.closed,
                                     truncated: cut, unread: data.count))
        }
    }

    /// Status line and headers (names lower-cased, values trimmed) from the bytes before the
    /// blank line; nil when the status line is not HTTP. Bytes, not Strings: the head of every
    /// response is parsed, and Foundation's line splitting cost more than the rest of the read.
    static func parseHead(_ bytes: ArraySlice<UInt8>) -> (status: Int, http10: Bool, headers: [String: String])? {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 13, i + 1 < bytes.endIndex, bytes[i + 1] == 10 {
                lines.append(bytes[lineStart..<i])
                i += 2
                lineStart = i
            } else {
                i += 1
            }
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        // Status line: HTTP/x.y SP code [SP reason]
        let statusLine = lines[0]
        guard statusLine.starts(with: "HTTP/".utf8), let space = statusLine.firstIndex(of: 32) else { return nil }
        var codeEnd = space + 1
        var status = 0
        var digits = 0
        while codeEnd < statusLine.endIndex, statusLine[codeEnd] >= 48, statusLine[codeEnd] <= 57, digits < 4 {
            status = status * 10 + Int(statusLine[codeEnd] - 48)
            codeEnd += 1
            digits += 1
        }
        guard digits > 0, codeEnd == statusLine.endIndex || statusLine[codeEnd] == 32 else { return nil }
        let http10 = statusLine[statusLine.startIndex..<space].elementsEqual("HTTP/1.0".utf8)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: 58) else { continue }
            let name = String(decoding: line[line.startIndex..<colon].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
            var valueStart = colon + 1
            var valueEnd = line.endIndex
            while valueStart < valueEnd, line[valueStart] == 32 || line[valueStart] == 9 { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == 32 || line[valueEnd - 1] == 9 { valueEnd -= 1 }
            headers[name] = String(decoding: line[valueStart..<valueEnd], as: UTF8.self)
        }
        return (status, http10, headers)
    }
}
