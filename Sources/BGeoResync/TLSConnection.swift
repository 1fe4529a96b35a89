import BGeoForensics
import CCrypto
import Foundation

/// The TLS settings of one client: OpenSSL, peer certificates verified against the system
/// bundle (`/etc/ssl/certs/ca-certificates.crt` and the hashed `/etc/ssl/certs`), TLS 1.2 or
/// later. There is no switch to turn verification off.
final class TLSContext {
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"
    static let systemDirectory = "/etc/ssl/certs"
    let context: OpaquePointer

    init?() {
        let fm = FileManager.default
        let bundle = fm.fileExists(atPath: TLSContext.systemBundle) ? TLSContext.systemBundle : nil
        let directory = fm.fileExists(atPath: TLSContext.systemDirectory) ? TLSContext.systemDirectory : nil
        guard let context = bgeo_tls_client_context(bundle, directory) else { return nil }
        self.context = context
    }

    deinit { SSL_CTX_free(context) }
}

/// TLS over a `SocketConnection`: handshake, reads and writes all non-blocking and bounded by
/// the exchange's deadline, so a slow or trickling https server is cut exactly like an http one.
final class TLSConnection: HTTPConnection {
    private let socket: SocketConnection
    private let ssl: OpaquePointer
    private var closed = false

    private init(socket: SocketConnection, ssl: OpaquePointer) {
        self.socket = socket
        self.ssl = ssl
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        // One non-blocking close_notify attempt; the socket goes either way.
        ERR_clear_error()
        SSL_shutdown(ssl)
        SSL_free(ssl)
        socket.close()
        ERR_clear_error()
    }

    /// Runs the handshake on `socket`, verifying that the certificate chains to a trusted CA and
    /// names `host` (a DNS name, or an IP address in its subjectAltName).
    static func open(_ socket: SocketConnection, host: String, context: TLSContext,
                     deadline: inout ExchangeDeadline) -> Result<TLSConnection, NetworkFailure> {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            socket.close()
            return .failure(NetworkFailure(.tls, "cannot set up TLS (\(TLSConnection.errorQueueText() ?? "SSL_new failed"))"))
        }
        let isIPAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        guard SSL_set_fd(ssl, socket.fd) == 1, bgeo_tls_expect_peer(ssl, host, isIPAddress ? 1 : 0) == 1 else {
            SSL_free(ssl)
            socket.close()
            return .failure(NetworkFailure(.tls, "cannot set up TLS for '\(host)' (\(TLSConnection.errorQueueText() ?? "invalid peer name"))"))
        }
        let connection = TLSConnection(socket: socket, ssl: ssl)
        deadline.phase = "during the TLS handshake"
        while true {
            ERR_clear_error()
            let rc = SSL_connect(ssl)
            if rc == 1 { return .success(connection) }
            let code = SSL_get_error(ssl, rc)
            let savedErrno = errno
            switch code {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                let events = Int16(code == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT)
                if let failure = socket.wait(events, &deadline, finishing: false) {
                    connection.close()
                    return .failure(failure)
                }
            default:
                let failure = connection.handshakeFailure(code, errno: savedErrno)
                connection.close()
                return .failure(failure)
            }
        }
    }

    /// The reason a handshake failed, in the words of the check that failed.
    private func handshakeFailure(_ code: Int32, errno savedErrno: Int32) -> NetworkFailure {
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            let reason = String(cString: X509_verify_cert_error_string(verify))
            return NetworkFailure(.tls, "TLS handshake with \(socket.peer) failed: certificate verify failed (\(reason))")
        }
        if let text = TLSConnection.errorQueueText() {
            return NetworkFailure(.tls, "TLS handshake with \(socket.peer) failed: \(text)")
        }
        if code == SSL_ERROR_SYSCALL, savedErrno != 0 {
            return .socket(savedErrno, "during the TLS handshake", peer: socket.peer)
        }
        return NetworkFailure(.tls, "TLS handshake with \(socket.peer) failed: the server closed the connection")
    }

    /// The reason strings of OpenSSL's error queue (emptied), or nil when it is empty.
    static func errorQueueText() -> String? {
        var reasons: [String] = []
        while true {
            let error = ERR_get_error()
            guard error != 0 else { break }
            if let reason = ERR_reason_error_string(error) {
                reasons.append(String(cString: reason))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(error, &buffer, buffer.count)
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    func write(_ bytes: UnsafeRawBufferPointer, deadline: inout ExchangeDeadline) -> NetworkFailure? {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let n = SSL_write(ssl, bytes.baseAddress! + offset, Int32(min(bytes.count - offset, Int(Int32.max))))
            if n > 0 {
                offset += Int(n)
                continue
            }
            if let failure = wait(after: n, &deadline, finishing: false) { return failure }
        }
        return nil
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: inout ExchangeDeadline) -> Result<Int, NetworkFailure> {
        while true {
            ERR_clear_error()
            let n = SSL_read(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
            if n > 0 { return .success(Int(n)) }
            if SSL_get_error(ssl, n) == SSL_ERROR_ZERO_RETURN { return .success(0) }
            if let failure = wait(after: n, &deadline, finishing: true) { return .failure(failure) }
        }
    }

    /// Decrypted bytes OpenSSL holds, a record it has read but not processed, a close_notify it
    /// has seen, or any byte on the socket (a TLS record not yet read): all count as pending.
    func pendingInput() -> ConnectionReuse.Pending {
        if SSL_pending(ssl) > 0 || SSL_has_pending(ssl) == 1 { return .bytes }
        if SSL_get_shutdown(ssl) & Int32(SSL_RECEIVED_SHUTDOWN) != 0 { return .closed }
        return socket.pendingInput()
    }

    /// After an SSL_read/SSL_write that did not complete: waits for what OpenSSL asked for
    /// (nil, then retry) or says why the connection is unusable.
    private func wait(after rc: Int32, _ deadline: inout ExchangeDeadline, finishing: Bool) -> NetworkFailure? {
        let savedErrno = errno
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: return socket.wait(Int16(POLLIN), &deadline, finishing: finishing)
        case SSL_ERROR_WANT_WRITE: return socket.wait(Int16(POLLOUT), &deadline, finishing: finishing)
        case SSL_ERROR_SYSCALL:
            if let text = TLSConnection.errorQueueText() { return NetworkFailure(.tls, "TLS error with \(socket.peer): \(text)") }
            return .socket(savedErrno == 0 ? ECONNRESET : savedErrno, deadline.phase, peer: socket.peer)
        default:
            return NetworkFailure(.tls, "TLS error with \(socket.peer) \(deadline.phase): \(TLSConnection.errorQueueText() ?? "protocol error")")
        }
    }
}
