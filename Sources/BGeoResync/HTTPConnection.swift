import BGeoForensics
import Foundation

/// Monotonic seconds, for deadlines.
enum HTTPClock {
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// The end of one exchange: connect, TLS handshake, write and read all share it, so
/// `httpTimeoutMs` bounds the whole request whatever the server does (trickling included).
struct ExchangeDeadline {
    var end: Double
    /// Polled beside the socket: a signal abandons connecting and writing at once, and leaves
    /// a request already sent `interruptGrace` seconds to be answered.
    let interrupt: InterruptSignal?
    /// Set once a signal was seen while waiting for a response (the grace then runs).
    var graceStarted = false
    /// What the exchange is doing, for the sentence a timeout becomes ("while reading the
    /// response body").
    var phase = "while connecting"
    static let interruptGrace = 1.0

    var remaining: Double { end - HTTPClock.now() }
}

/// What waiting on a socket came to.
enum SocketWait: Equatable {
    case ready
    case timedOut
    case interrupted
    case failed(Int32)
}

/// Waits until `fd` is ready for `events` (POLLIN / POLLOUT), the deadline passes, or a
/// signal arrives. `finishing`: the request is already sent, so a signal shortens the
/// deadline to the grace instead of abandoning at once.
func waitForSocket(_ fd: Int32, events: Int16, deadline: inout ExchangeDeadline, finishing: Bool) -> SocketWait {
    while true {
        let left = deadline.remaining
        guard left > 0 else { return .timedOut }
        var fds = [pollfd(fd: fd, events: events, revents: 0)]
        let watchSignal = deadline.interrupt != nil && !deadline.graceStarted
        if watchSignal, let interrupt = deadline.interrupt {
            fds.append(pollfd(fd: interrupt.descriptor, events: Int16(POLLIN), revents: 0))
        }
        let ready = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, 3_600_000).rounded(.up)))
        if ready < 0 {
            if errno == EINTR { continue }
            return .failed(errno)
        }
        if ready == 0 { continue }  // the loop re-checks the deadline
        if watchSignal, fds[1].revents != 0 {
            guard finishing else { return .interrupted }
            deadline.graceStarted = true
            deadline.end = min(deadline.end, HTTPClock.now() + ExchangeDeadline.interruptGrace)
            if fds[0].revents == 0 { continue }
        }
        return .ready
    }
}

/// One open connection to an origin: bytes in, bytes out, each call bounded by the
/// exchange's deadline. Plain TCP (`SocketConnection`) or TLS over it (`TLSConnection`).
protocol HTTPConnection: AnyObject {
    /// Writes every byte, or says why not.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: inout ExchangeDeadline) -> NetworkFailure?
    /// Reads at most `into.count` bytes; 0 = the peer closed the connection.
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: inout ExchangeDeadline) -> Result<Int, NetworkFailure>
    /// Whether anything waits unread (or the peer closed), without reading or blocking: what
    /// `ConnectionReuse` needs before a kept connection carries the next request.
    func pendingInput() -> ConnectionReuse.Pending
    func close()
}

extension NetworkFailure {
    /// The failure for a socket error (`errno`) while `doing` something with `peer`.
    static func socket(_ code: Int32, _ doing: String, peer: String) -> NetworkFailure {
        let reason = String(cString: strerror(code))
        switch code {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL:
            return NetworkFailure(.refused, "\(peer) \(doing): \(reason)")
        case ECONNRESET, EPIPE, ECONNABORTED, ENOTCONN:
            return NetworkFailure(.reset, "the connection to \(peer) was reset \(doing) (\(reason))")
        case ETIMEDOUT:
            return NetworkFailure(.timeout, "\(peer) \(doing): \(reason)")
        default:
            return NetworkFailure(.reset, "\(peer) \(doing): \(reason)")
        }
    }

    static func timedOut(_ doing: String, peer: String, timeout: Double) -> NetworkFailure {
        NetworkFailure(.timeout, "no complete response from \(peer) within httpTimeoutMs (\(Int((timeout * 1000).rounded())) ms) \(doing)")
    }

    static func interrupted(_ doing: String) -> NetworkFailure {
        NetworkFailure(.interrupted, "the run was interrupted \(doing); the request was abandoned")
    }
}

/// A TCP connection, non-blocking underneath, every wait bounded by the deadline.
final class SocketConnection: HTTPConnection {
    let fd: Int32
    let peer: String
    let timeout: Double
    private var closed = false

    private init(fd: Int32, peer: String, timeout: Double) {
        self.fd = fd
        self.peer = peer
        self.timeout = timeout
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        Foundation.close(fd)
    }

    /// Resolved addresses per "host:port": a reconnect within a run does not ask DNS again.
    final class AddressCache {
        private var entries: [String: [(family: Int32, address: Data)]] = [:]

        func addresses(host: String, port: Int) -> Result<[(family: Int32, address: Data)], NetworkFailure> {
            let key = "\(host):\(port)"
            if let cached = entries[key] { return .success(cached) }
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let rc = getaddrinfo(host, String(port), &hints, &list)
            guard rc == 0, list != nil else {
                let reason = rc == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(rc))
                return .failure(NetworkFailure(.dns, "could not resolve host '\(host)' (\(reason))"))
            }
            defer { freeaddrinfo(list) }
            var found: [(family: Int32, address: Data)] = []
            var node = list
            while let info = node {
                found.append((info.pointee.ai_family, Data(bytes: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen))))
                node = info.pointee.ai_next
            }
            entries[key] = found
            return .success(found)
        }
    }

    /// Connects to the first address of `host` that answers before the deadline.
    static func open(host: String, port: Int, addresses: AddressCache, timeout: Double,
                     deadline: inout ExchangeDeadline) -> Result<SocketConnection, NetworkFailure> {
        let peer = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let resolved: [(family: Int32, address: Data)]
        switch addresses.addresses(host: host, port: port) {
        case .failure(let failure): return .failure(failure)
        case .success(let list): resolved = list
        }
        var last = NetworkFailure(.refused, "cannot connect to \(peer)")
        for candidate in resolved {
            let fd = socket(candidate.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
            let rc = candidate.address.withUnsafeBytes { raw in
                connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            var error: Int32 = rc == 0 ? 0 : errno
            if rc != 0 && error == EINPROGRESS {
                switch waitForSocket(fd, events: Int16(POLLOUT), deadline: &deadline, finishing: false) {
                case .ready:
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    error = 0
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                case .timedOut:
                    Foundation.close(fd)
                    return .failure(.timedOut("while connecting", peer: peer, timeout: timeout))
                case .interrupted:
                    Foundation.close(fd)
                    return .failure(.interrupted("while connecting to \(peer)"))
                case .failed(let code):
                    error = code
                }
            }
            if error == 0 {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return .success(SocketConnection(fd: fd, peer: peer, timeout: timeout))
            }
            Foundation.close(fd)
            last = error == ECONNREFUSED
                ? NetworkFailure(.refused, "connection refused by \(peer)")
                : .socket(error, "could not be reached", peer: peer)
        }
        return .failure(last)
    }

    func write(_ bytes: UnsafeRawBufferPointer, deadline: inout ExchangeDeadline) -> NetworkFailure? {
        var offset = 0
        while offset < bytes.count {
            let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n >= 0 {
                offset += n
                continue
            }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { return .socket(errno, deadline.phase, peer: peer) }
            if let failure = wait(Int16(POLLOUT), &deadline, finishing: false) { return failure }
        }
        return nil
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: inout ExchangeDeadline) -> Result<Int, NetworkFailure> {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return .success(n) }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else {
                return .failure(.socket(errno, deadline.phase, peer: peer))
            }
            if let failure = wait(Int16(POLLIN), &deadline, finishing: true) {
                return .failure(failure)
            }
        }
    }

    func pendingInput() -> ConnectionReuse.Pending {
        var byte: UInt8 = 0
        while true {
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            if n > 0 { return .bytes }
            if n == 0 { return .closed }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .nothing : .closed
        }
    }

    /// Waits for the socket; nil when it is ready.
    func wait(_ events: Int16, _ deadline: inout ExchangeDeadline, finishing: Bool) -> NetworkFailure? {
        switch waitForSocket(fd, events: events, deadline: &deadline, finishing: finishing) {
        case .ready: return nil
        case .timedOut where deadline.graceStarted, .interrupted: return .interrupted(deadline.phase)
        case .timedOut: return .timedOut(deadline.phase, peer: peer, timeout: timeout)
        case .failed(let code): return .socket(code, deadline.phase, peer: peer)
        }
    }
}
