import BGeoForensics
/// When a keep-alive connection may carry another request — the one rule, for http and https.
///
/// Why: HTTP/1.1 pairs a response with a request only by order on the connection. A byte the
/// client did not ask for (a stray response a server writes unsolicited, bytes past a body's
/// Content-Length or chunked end) would be read as the answer to the *next* request, and a stray
/// `200` would count records delivered that no server accepted. So a connection is kept only
/// when it is provably clean; anything else is closed and the next request opens a new one
/// (a reconnect costs milliseconds; a wrong "delivered" loses a customer's records).
enum ConnectionReuse {
    /// What a non-blocking look (`MSG_PEEK | MSG_DONTWAIT`; for TLS also OpenSSL's buffer) at a
    /// kept connection found just before the next request would be written on it.
    enum Pending: Equatable {
        /// Nothing to read: the connection is quiet.
        case nothing
        /// Unread bytes wait: nobody asked for them.
        case bytes
        /// The peer closed (EOF) or the socket reports an error.
        case closed
    }

    /// After a response: keep the connection only for a 2xx that ended exactly where its framing
    /// (Content-Length, chunked) said — no byte read past it, the body read whole — and with no
    /// sign that the server closes (`Connection: close`, HTTP/1.0, a body read to EOF).
    /// Any non-2xx closes it: a server in trouble is the one that writes strays.
    static func keepAfterResponse(status: Int, closeSignalled: Bool, bodyCut: Bool, unreadBytes: Int) -> Bool {
        (200...299).contains(status) && !closeSignalled && !bodyCut && unreadBytes == 0
    }

    /// Before the next request: use the kept connection only when it goes to the same origin, has
    /// not idled past `maxIdle` (servers drop idle connections), and nothing — not a byte, not an
    /// EOF — waits on it.
    static func reuseBeforeRequest(sameOrigin: Bool, idleSeconds: Double, maxIdle: Double, pending: Pending) -> Bool {
        sameOrigin && idleSeconds <= maxIdle && pending == .nothing
    }
}
