import Foundation

/// A small HTTP/1.1 client over POSIX sockets for plain `http://` endpoints: one keep-alive
/// connection, the request written in one send, Content-Length or chunked responses.
///
/// Why not URLSession for these: on Linux (libcurl underneath) a keep-alive connection that the
/// server closes without answering makes libcurl silently re-send the request and URLSession then
/// stalls, spinning, until the timeout — a duplicate delivery plus a 30 s hang per dropped
/// connection. Here a dropped connection is simply status 0 (network error), journaled and
/// retried by the policy like the SDK does. `https://` stays on URLSession with certificate
/// checks on (see `RoutingTransport`).
public final class SocketHTTPClient: HTTPSending {
    private let timeout: Double
    private var connection: (fd: Int32, key: String, lastUsed: Double)?
    /// A connection idle longer than this is replaced before sending: servers close idle
    /// keep-alive connections, and a request written into one would fail for no reason.
    private let maxIdle = 2.0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    public init(timeout: Double) { self.timeout = timeout }

    deinit { closeConnection() }

    private func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    private func closeConnection() {
        if let connection { close(connection.fd) }
        connection = nil
    }

    struct Target {
        var host: String
        var port: Int
        var pathAndQuery: String
        var hostHeader: String
    }

    static func target(_ text: String) -> Target? {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
              let host = components.host, !host.isEmpty else { return nil }
        let port = components.port ?? 80
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let hostHeader = (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + (components.port.map { ":\($0)" } ?? "")
        return Target(host: bareHost, port: port, pathAndQuery: path, hostHeader: hostHeader)
    }

    /// The parsed URL and the request head up to (not including) Content-Length, for the last
    /// URL and header list: a drain sends thousands of requests to one URL with the same headers,
    /// and URLComponents plus header formatting cost more than the socket I/O of a small batch.
    private var cachedHead: (url: String, method: String, headers: [HTTPHeader], target: Target, head: [UInt8])?
    /// Reused between requests (head + body go out in one send).
    private var outgoing: [UInt8] = []

    public func send(_ request: HTTPRequestSpec) -> HTTPResult {
        send(request, whileWaiting: {})
    }

    /// Writes the request, runs `whileWaiting` while the server works on it, then reads the
    /// response. `whileWaiting` runs only once the whole request is written.
    public func send(_ request: HTTPRequestSpec, whileWaiting: () -> Void) -> HTTPResult {
        let start = now()
        func elapsed() -> Int { Int((now() - start) * 1000) }
        let target: Target
        let head: [UInt8]
        if let cached = cachedHead, cached.url == request.url, cached.method == request.method, cached.headers == request.headers {
            target = cached.target
            head = cached.head
        } else {
            guard let parsed = SocketHTTPClient.target(request.url) else {
                return HTTPResult(status: 0, body: "invalid http URL '\(request.url)'")
            }
            var text = "\(request.method) \(parsed.pathAndQuery) HTTP/1.1\r\nHost: \(parsed.hostHeader)\r\n"
            for header in request.headers where !["host", "content-length", "connection"].contains(header.name.lowercased()) {
                text += "\(header.name): \(header.value)\r\n"
            }
            target = parsed
            head = Array(text.utf8)
            cachedHead = (request.url, request.method, request.headers, parsed, head)
        }
        let key = "\(target.host):\(target.port)"
        if let c = connection, c.key != key || start - c.lastUsed > maxIdle { closeConnection() }
        if connection == nil {
            switch open(target) {
            case .success(let fd): connection = (fd, key, start)
            case .failure(let message): return HTTPResult(status: 0, body: "network error: \(message)", milliseconds: elapsed())
            }
        }
        guard let fd = connection?.fd else { return HTTPResult(status: 0, body: "network error: no connection") }
        outgoing.removeAll(keepingCapacity: true)
        outgoing.append(contentsOf: head)
        outgoing.append(contentsOf: "Content-Length: \(request.body.count)\r\nConnection: keep-alive\r\n\r\n".utf8)
        outgoing.append(contentsOf: request.body)
        if let message = writeAll(fd, outgoing) {
            closeConnection()
            return HTTPResult(status: 0, body: "network error: \(message)", milliseconds: elapsed())
        }
        whileWaiting()
        let deadline = start + timeout
        switch readResponse(fd, deadline: deadline) {
        case .failure(let message):
            closeConnection()
            return HTTPResult(status: 0, body: "network error: \(message)", milliseconds: elapsed())
        case .success(let response):
            if response.close { closeConnection() } else { connection?.lastUsed = now() }
            let retryAfter = response.headers["retry-after"].flatMap(URLSessionTransport.parseRetryAfter)
            return HTTPResult(status: response.status, body: String(decoding: response.body, as: UTF8.self),
                              retryAfter: retryAfter, milliseconds: elapsed())
        }
    }

    enum Outcome<T> {
        case success(T)
        case failure(String)
    }

    private func open(_ target: Target) -> Outcome<Int32> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard rc == 0, let first = list else { return .failure("cannot resolve \(target.host): \(String(cString: gai_strerror(rc)))") }
        defer { freeaddrinfo(list) }
        var lastError = "cannot connect to \(target.host):\(target.port)"
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node {
            node = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            // Non-blocking connect bounded by the timeout, then blocking I/O with poll deadlines.
            let flags = fcntl(fd, F_GETFL, 0)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result != 0 && errno == EINPROGRESS {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&pfd, 1, Int32(timeout * 1000)) == 1 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    result = error == 0 ? 0 : -1
                    if error != 0 { errno = error }
                } else {
                    errno = ETIMEDOUT
                }
            }
            if result == 0 {
                _ = fcntl(fd, F_SETFL, flags)
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return .success(fd)
            }
            lastError = "cannot connect to \(target.host):\(target.port): \(String(cString: strerror(errno)))"
            close(fd)
        }
        return .failure(lastError)
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Foundation.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return "write failed: \(String(cString: strerror(errno)))"
            }
            offset += n
        }
        return nil
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var close: Bool
    }

    /// Reads one response; a peer that closes before a complete response is a network error.
    private func readResponse(_ fd: Int32, deadline: Double) -> Outcome<Response> {
        var data: [UInt8] = []
        var closed = false
        func fill() -> String? {
            let remaining = deadline - now()
            guard remaining > 0 else { return "timed out" }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(max(1, remaining * 1000)))
            if ready == 0 { return "timed out" }
            if ready < 0 { return errno == EINTR ? nil : "poll failed: \(String(cString: strerror(errno)))" }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { return errno == EINTR ? nil : "read failed: \(String(cString: strerror(errno)))" }
            if n == 0 { closed = true; return nil }
            data.append(contentsOf: buffer[0..<n])
            return nil
        }
        while true {
            // Head.
            var headEnd: Int?
            while headEnd == nil {
                headEnd = SocketHTTPClient.find(data, [13, 10, 13, 10])
                if headEnd != nil { break }
                if closed { return .failure(data.isEmpty ? "the server closed the connection without answering" : "truncated response head") }
                if let error = fill() { return .failure(error) }
            }
            let end = headEnd!
            guard let head = SocketHTTPClient.parseHead(data[0..<end]) else { return .failure("not an HTTP response") }
            let status = head.status
            let headers = head.headers
            data.removeFirst(end + 4)
            if (100...199).contains(status) { continue }  // 100 Continue and friends: the real answer follows
            let http10 = head.http10
            var close = headers["connection"]?.lowercased() == "close" || (http10 && headers["connection"]?.lowercased() != "keep-alive")
            var body: [UInt8] = []
            if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                while true {
                    var lineEnd = SocketHTTPClient.find(data, [13, 10])
                    while lineEnd == nil {
                        if closed { return .failure("truncated chunked body") }
                        if let error = fill() { return .failure(error) }
                        lineEnd = SocketHTTPClient.find(data, [13, 10])
                    }
                    let sizeText = String(decoding: data[0..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
                    guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                        return .failure("bad chunk size")
                    }
                    data.removeFirst(lineEnd! + 2)
                    if size == 0 {
                        // Trailers end with an empty line.
                        while SocketHTTPClient.find(data, [13, 10]) == nil {
                            if closed { break }
                            if let error = fill() { return .failure(error) }
                        }
                        if let e = SocketHTTPClient.find(data, [13, 10]) { data.removeFirst(e + 2) }
                        break
                    }
                    while data.count < size + 2 {
                        if closed { return .failure("truncated chunk") }
                        if let error = fill() { return .failure(error) }
                    }
                    body.append(contentsOf: data[0..<size])
                    data.removeFirst(size + 2)
                }
            } else if let lengthText = headers["content-length"], let length = Int(lengthText) {
                while data.count < length {
                    if closed { return .failure("truncated body") }
                    if let error = fill() { return .failure(error) }
                }
                body = Array(data[0..<length])
            } else if status == 204 || status == 304 {
                body = []
            } else {
                // Body runs to the end of the connection.
                while !closed {
                    if let error = fill() { return .failure(error) }
                }
                body = data
                close = true
            }
            return .success(Response(status: status, headers: headers, body: body, close: close || closed))
        }
    }

    /// `http://` in any case, without lower-casing the whole URL per request.
    static func isPlainHTTP(_ url: String) -> Bool {
        var iterator = url.utf8.makeIterator()
        for expected in "http://".utf8 {
            guard let byte = iterator.next(), byte | 0x20 == expected | 0x20 else { return false }
        }
        return true
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

    static func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == needle[0] {
                var match = true
                for j in 1..<needle.count where haystack[i + j] != needle[j] { match = false; break }
                if match { return i }
            }
            i += 1
        }
        return nil
    }
}

/// `http://` through `SocketHTTPClient`, everything else (https) through URLSession with
/// certificate checks on.
public final class RoutingTransport: HTTPSending {
    private let plain: SocketHTTPClient
    private let tls: URLSessionTransport

    public init(timeout: Double) {
        plain = SocketHTTPClient(timeout: timeout)
        tls = URLSessionTransport(timeout: timeout)
    }

    public func send(_ request: HTTPRequestSpec) -> HTTPResult {
        send(request, whileWaiting: {})
    }

    public func send(_ request: HTTPRequestSpec, whileWaiting: () -> Void) -> HTTPResult {
        SocketHTTPClient.isPlainHTTP(request.url)
            ? plain.send(request, whileWaiting: whileWaiting) : tls.send(request, whileWaiting: whileWaiting)
    }
}
