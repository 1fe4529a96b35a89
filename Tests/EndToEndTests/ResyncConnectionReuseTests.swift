import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

/// "A response counts only for the request it answers", the same on https as on http: a
/// keep-alive connection carries the next request only when it is clean — after a 2xx that ended
/// exactly where its framing said, with nothing unread waiting on it. A stray response a server
/// writes unsolicited is never taken for the answer to a later request.
@Suite(.serialized) struct ResyncConnectionReuseTests {
    /// A complete, well-framed 200 that no request asked for.
    static let strayOK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"

    static func server(_ dir: TestDirectory, _ behaviour: JSONValue, _ ca: TestCertificateAuthority?) throws -> ResyncIngestServer {
        try ResyncIngestServer(dir, behaviour: behaviour, tlsCertificate: ca?.serverPEM)
    }

    static func run(_ dump: String, _ dir: TestDirectory, _ server: ResyncIngestServer, _ ca: TestCertificateAuthority?,
                    _ extra: [String]) throws -> ToolResult {
        let arguments = ["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs"),
                         "--backoff-initial", "0.01s", "--backoff-max", "0.05s", "--json"] + extra
        return try ca.map { try $0.run(arguments) } ?? ToolRunner.run(arguments)
    }

    /// The statuses the working copy's journal recorded, in order.
    static func journalStatuses(_ dir: TestDirectory) throws -> [Int] {
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT status FROM journal ORDER BY rowid")
        var statuses: [Int] = []
        while try stmt.step() { statuses.append(stmt.int(0)) }
        return statuses
    }

    /// The bug: every request answered 503, each 503 followed 60 ms later by an unsolicited 200 on
    /// the same connection. Taking that 200 for the next request's answer counted every record
    /// delivered (exit 0). Nothing may count: exit 3, all records still queued.
    @Test(arguments: ["http", "https"])
    func strayOKAfterA503IsNeverCountedForTheNextRequest(scheme: String) throws {
        if scheme == "https", let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-stray-503-\(scheme)")
        let ca = scheme == "https" ? try TestCertificateAuthority("stray") : nil
        let server = try Self.server(dir, ["default_status": 503,
                                           "after": ["/locs": ["send": .string(Self.strayOK), "delay_ms": 60]]], ca)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 6, config: [:])
        let result = try Self.run(dump, dir, server, ca, ["--max-attempts", "3"])
        #expect(result.exitCode == 3, "\(result.stdout)\n\(result.stderr)")
        let summary = try ResyncEndToEndTests.summary(result)
        #expect(summary["delivered"] == .int(0) && summary["remaining"] == .int(6), "\(result.stdout)")
        let statuses = try Self.journalStatuses(dir)
        #expect(statuses.count == 3 && statuses.allSatisfy { $0 == 503 }, "\(statuses)")
        // Each request after a 503 went on a connection of its own.
        let connections = server.requests().map(\.connection)
        #expect(connections.count == 3 && Set(connections).count == connections.count, "\(connections)")
    }

    /// A 200 whose bytes run past its Content-Length (here: a whole stray 200 after it, in the
    /// same write or in a write of its own right after): the connection is not reused — the next
    /// request goes on a new one — and the extra bytes never count as the next request's answer
    /// (the server answers every later request 503).
    @Test(arguments: [("http", "same write"), ("http", "own write"), ("https", "same write"), ("https", "own write")])
    func bytesPastTheFramingOfA2xxCloseTheConnection(scheme: String, write: String) throws {
        if scheme == "https", let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-overlong-\(scheme)-\(write == "same write" ? "same" : "own")")
        let ca = scheme == "https" ? try TestCertificateAuthority("overlong") : nil
        var after: JSONObject = ["send": .string(Self.strayOK), "statuses": [200]]
        if write == "own write" { after["delay_ms"] = 0 }
        let server = try Self.server(dir, ["default_status": 503, "paths": ["/locs": ["statuses": [200]]],
                                           "after": ["/locs": .object(after)]], ca)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 3, config: [:])
        let result = try Self.run(dump, dir, server, ca, ["--max-attempts", "2"])
        #expect(result.exitCode == 3, "\(result.stdout)\n\(result.stderr)")
        let summary = try ResyncEndToEndTests.summary(result)
        #expect(summary["delivered"] == .int(1) && summary["remaining"] == .int(2), "\(result.stdout)")
        let statuses = try Self.journalStatuses(dir)
        #expect(statuses == [200, 503, 503], "\(statuses)")
        let connections = server.requests().map(\.connection)
        #expect(connections.count == 3 && connections[0] != connections[1], "\(connections)")
    }

    /// After a non-2xx the connection is closed: the retry arrives on a new connection. A clean 2xx
    /// keeps it (keep-alive still works, TLS included): 503, then three 200s on one connection.
    @Test(arguments: ["http", "https"])
    func connectionIsClosedAfterANon2xxAndKeptAfterACleanOne(scheme: String) throws {
        if scheme == "https", let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-close-after-503-\(scheme)")
        let ca = scheme == "https" ? try TestCertificateAuthority("close503") : nil
        let server = try Self.server(dir, ["paths": ["/locs": ["statuses": [503]]]], ca)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 3, config: [:])
        let result = try Self.run(dump, dir, server, ca, ["--max-attempts", "3"])
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        let seen = server.requests()
        #expect(seen.map(\.status) == [503, 200, 200, 200])
        let connections = seen.map(\.connection)
        #expect(connections.count == 4 && connections[1] != connections[0] && Set(connections.dropFirst()).count == 1,
                "\(connections)")
    }

    /// The idle check, deterministically: a 200, then (50 ms later, while the client is idle) a
    /// stray 200 on the same connection. The next request must see it waiting, reconnect, and
    /// get the server's own answer to it (503), not the stray.
    @Test func strayResponseThatArrivesWhileIdleIsSeenBeforeTheNextRequest() throws {
        let dir = TestDirectory("resync-stray-idle")
        let server = try Self.server(dir, ["default_status": 503, "paths": ["/locs": ["statuses": [200]]],
                                           "after": ["/locs": ["send": .string(Self.strayOK), "delay_ms": 50, "statuses": [200]]]], nil)
        let client = HTTPClient(timeout: 5)
        let request = HTTPRequestSpec(method: "POST", url: server.url("/locs"), headers: [HTTPHeader("Content-Type", "application/json")],
                                      body: Array(#"{"uuid":"idle-1"}"#.utf8))
        #expect(client.send(request).status == 200)
        usleep(250_000)
        let second = client.send(request)
        #expect(second.status == 503, "\(second)")
        let connections = server.requests().map(\.connection)
        #expect(connections.count == 2 && connections[0] != connections[1], "\(connections)")
    }
    /// Regression (stop 56): the client kept the last request's head and compared URL and headers
    /// with `==`, which for `String` is canonical equivalence, so a header spelled precomposed
    /// after the same header spelled decomposed went out with the first request's bytes.
    @Test func eachRequestCarriesItsOwnBytes() throws {
        let dir = TestDirectory("resync-own-bytes")
        let server = try Self.server(dir, ["default_status": 200], nil)
        let client = HTTPClient(timeout: 5)
        let spellings = ["p\u{E4}ss-note", "pa\u{308}ss-note"]
        #expect(spellings[0] == spellings[1])
        for note in spellings + spellings.reversed() {
            let request = HTTPRequestSpec(method: "POST", url: server.url("/locs"),
                                          headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Note", note)],
                                          body: Array(#"{"uuid":"own-1"}"#.utf8))
            #expect(client.send(request).status == 200)
        }
        let notes = server.requests().map { $0.header("X-Note") ?? "" }
        #expect(notes.count == 4)
        // The server reads header bytes as ISO-8859-1: two spellings, two texts.
        #expect(notes[0] != notes[1] && notes[0] == notes[3] && notes[1] == notes[2], "\(notes.map { Array($0.utf8) })")
    }
}
