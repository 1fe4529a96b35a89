import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync
@testable import BGeoSimulation

/// A transport with a write phase, like `HTTPClient`: it runs the engine's `whileWaiting`
/// work (hash + next batch) between "writing" the request and answering it, and records what the
/// working copy held at the moment each request left.
final class PipelinedTransport: HTTPSending {
    var requests: [HTTPRequestSpec] = []
    /// (journal rows, queued rows) seen when each request was sent.
    var seen: [(journal: Int, queued: Int)] = []
    var waited = 0
    let workingCopy: () -> WorkingCopy?
    let answer: (HTTPRequestSpec, Int) -> HTTPResult
    init(workingCopy: @escaping () -> WorkingCopy?, _ answer: @escaping (HTTPRequestSpec, Int) -> HTTPResult) {
        self.workingCopy = workingCopy
        self.answer = answer
    }
    func send(_ request: HTTPRequestSpec) -> HTTPResult { send(request, whileWaiting: {}) }
    func send(_ request: HTTPRequestSpec, whileWaiting: () -> Void) -> HTTPResult {
        if let wc = workingCopy() { seen.append(((try? wc.count("journal")) ?? -1, wc.remaining)) }
        requests.append(request)
        whileWaiting()
        waited += 1
        return answer(request, requests.count)
    }
}

@Suite struct ResyncFastPathTests {
    /// The next batch is prepared while a request is in flight, but a request only leaves once
    /// the previous response and its consequence are committed; after a failure the prepared
    /// batch is dropped and the same records are re-sent.
    @Test func preparedBatchIsSentOnlyAfterTheDeliveryIsCommitted() throws {
        let dir = TestDirectory("resync-pipelined")
        let path = try ResyncEngineTests.makeDump(dir, count: 10, config: ["batchSync": true, "maxBatchSize": 3])
        let dump = try Dump(path: path)
        let settings = try ResyncSettings(config: dump.recordedConfig().config)
        let wc = try WorkingCopy(path: dir.file("work.db"), dump: dump)
        let transport = PipelinedTransport(workingCopy: { wc }) { _, n in
            HTTPResult(status: n == 2 ? 503 : 200, body: n == 2 ? "busy" : "ok")
        }
        var policy = UploadPolicy.bgeo
        policy.backoff = policy.backoff.scaled(initial: 0.001, cap: 0.002)
        let engine = ResyncEngine(workingCopy: wc, settings: settings, tokens: .init(accessToken: nil, refreshToken: nil),
                                  options: ResyncOptions(policy: policy, url: "http://test/locs"),
                                  transport: transport, redactor: Redactor(), sleep: { _ in })
        try engine.drainLocations()
        let batches = transport.requests.map { ResyncEngineTests.uuids(in: $0) }
        let u = Fixtures.uuid
        #expect(batches == [[u(1), u(2), u(3)], [u(4), u(5), u(6)], [u(4), u(5), u(6)], [u(7), u(8), u(9)], [u(10)]])
        // Request k left with k-1 journal rows committed and the delivered records already gone.
        #expect(transport.seen.map(\.journal) == [0, 1, 2, 3, 4])
        #expect(transport.seen.map(\.queued) == [10, 7, 7, 4, 1])
        #expect(transport.waited == 5 && engine.delivered == 10 && wc.remaining == 0)
        // Delivered rows stay in the table during the drain and are cleared once it ends.
        #expect(try wc.count("queue") == 0 && wc.progress("delivered_through") == 10)
        #expect(engine.drainSeconds > 0)
        // Prepared bodies are byte-identical to bodies built from the queue at send time.
        var stored: [RequestBuilder.Record] = []
        dump.forEachQueueRow { row in
            if [u(7), u(8), u(9)].contains(row.uuid) { stored.append(.init(uuid: row.uuid, json: row.json)) }
        }
        let expected = RequestBuilder(settings: settings).locationRequest(stored, accessToken: nil, url: "http://test/locs")
        #expect(stored.count == 3)
        #expect(transport.requests[3].body == expected.body)
        // Every request journaled, with the SHA-256 of exactly the bytes sent.
        let stmt = try wc.database.prepare("SELECT request_sha256, bytes FROM journal ORDER BY id")
        var hashes: [String] = []
        while try stmt.step() { hashes.append(stmt.text(0) ?? "") }
        #expect(hashes == transport.requests.map { SHA256Hasher.hex(bytes: $0.body) })
    }

    /// A delivery commits only the journal line and `delivered_through`; the rows are purged
    /// later. A run killed in between leaves them in the table: they are never offered again and
    /// the next open removes them.
    @Test func deliveredRowsAreSkippedThenPurgedWhenTheCopyIsReopened() throws {
        let dir = TestDirectory("resync-watermark")
        let path = try ResyncEngineTests.makeDump(dir, count: 5, config: [:])
        do {
            let wc = try WorkingCopy(path: dir.file("work.db"), dump: try Dump(path: path))
            let batch = try wc.nextBatch(limit: 2)
            try wc.transaction { try wc.markDelivered(batch) }
            #expect(wc.remaining == 3)
            #expect(try wc.count("queue") == 5)
            #expect(try wc.nextBatch(limit: nil).map(\.uuid) == (3...5).map(Fixtures.uuid))
            #expect(try wc.nextBatch(after: 0, limit: 1).map(\.uuid) == [Fixtures.uuid(3)])
            // The same rows cannot be delivered twice; the transaction rolls back whole.
            #expect(throws: WorkingCopy.Mismatch.self) { try wc.transaction { try wc.markDelivered(batch) } }
            #expect(wc.remaining == 3)
        }
        let reopened = try WorkingCopy(path: dir.file("work.db"), dump: try Dump(path: path))
        #expect(try reopened.count("queue") == 3 && reopened.remaining == 3)
        #expect(try reopened.progress("delivered_through") == 2)
    }

    /// A delivery committed with its journal line is recorded on that line alone (no progress
    /// page per request): a copy reopened after a kill in the middle of a drain still skips,
    /// and purges, exactly the delivered rows.
    @Test func deliveryMarkedOnTheJournalLineSurvivesAReopen() throws {
        let dir = TestDirectory("resync-journal-watermark")
        let path = try ResyncEngineTests.makeDump(dir, count: 5, config: [:])
        do {
            let wc = try WorkingCopy(path: dir.file("work.db"), dump: try Dump(path: path))
            let batch = try wc.nextBatch(limit: 3)
            let request = HTTPRequestSpec(method: "POST", url: "http://test/locs", headers: [], body: Array("{}".utf8))
            try wc.transaction {
                try wc.journal(.init(lane: "locations", request: request, uuids: batch.map(\.uuid), status: 200, response: "ok",
                                     ms: 1, attempt: 1, outcome: "delivered"), redactor: Redactor())
                try wc.markDelivered(batch)
            }
            #expect(try wc.remaining == 2 && wc.progress("delivered_through") == 0)
        }
        let reopened = try WorkingCopy(path: dir.file("work.db"), dump: try Dump(path: path))
        #expect(try reopened.remaining == 2 && reopened.count("queue") == 2)
        #expect(try reopened.progress("delivered_through") == 3)
        #expect(try reopened.nextBatch(limit: nil).map(\.uuid) == (4...5).map(Fixtures.uuid))
    }

    /// Batches prepared as bytes carry no record text: their bodies must still equal the general
    /// path's byte for byte (non-ASCII included), and a quarantined record keeps its stored text.
    @Test func preparedBytesMatchTheTextPathAndQuarantineKeepsTheRecord() throws {
        let dir = TestDirectory("resync-prepared-bytes")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        let texts = (1...5).map { #"{"uuid":"r\#($0)","note":"łódź \#($0) ✓","coords":{"latitude":52.1,"longitude":21.0}}"# }
        for (i, text) in texts.enumerated() { try w.insertRecord(uuid: "r\(i + 1)", timestamp: "2026-07-24T09:00:0\(i).000Z", json: text) }
        try w.setState("config", ["batchSync": true, "maxBatchSize": 2, "params": ["device": "dev-ż"]])
        try w.close()
        let dump = try Dump(path: path)
        let settings = try ResyncSettings(config: dump.recordedConfig().config)
        let wc = try WorkingCopy(path: dir.file("work.db"), dump: dump)
        let transport = PipelinedTransport(workingCopy: { nil }) { request, _ in
            ResyncEngineTests.uuids(in: request).contains("r4") ? HTTPResult(status: 422, body: "bad") : HTTPResult(status: 200, body: "")
        }
        let engine = ResyncEngine(workingCopy: wc, settings: settings, tokens: .init(accessToken: nil, refreshToken: nil),
                                  options: ResyncOptions(policy: .bgeo, url: "http://test/locs"),
                                  transport: transport, redactor: Redactor(), sleep: { _ in })
        try engine.drainLocations()
        let builder = RequestBuilder(settings: settings)
        for request in transport.requests {
            let records = ResyncEngineTests.uuids(in: request).map { uuid in
                RequestBuilder.Record(uuid: uuid, json: texts[Int(uuid.dropFirst())! - 1])
            }
            #expect(request.body == builder.locationRequest(records, accessToken: nil, url: "http://test/locs").body)
        }
        #expect(transport.requests.map { ResyncEngineTests.uuids(in: $0) } == [["r1", "r2"], ["r3", "r4"], ["r3"], ["r4"], ["r5"]])
        let quarantined = try wc.quarantined()
        #expect(quarantined.map(\.uuid) == ["r4"] && quarantined.first?.json == texts[3])
        #expect(wc.remaining == 0 && engine.delivered == 4)
    }

    @Test func bodyBytesKeepNonASCIIAndParams() throws {
        var config = SDKConfig()
        config.set(path: "batchSync", to: true)
        config.set(path: "params", to: ["device": "Zażółć \"gęślą\""])
        let builder = RequestBuilder(settings: try ResyncSettings(config: config))
        let records = [RequestBuilder.Record(uuid: "a", json: #"{"uuid":"a","note":"łódź ✓"}"#),
                       RequestBuilder.Record(uuid: "b", json: #"{"uuid":"b"}"#)]
        let bytes = builder.locationBodyBytes(records)
        let text = #"{"device":"Zażółć \"gęślą\"","location":[{"uuid":"a","note":"łódź ✓"},{"uuid":"b"}]}"#
        #expect(bytes == Array(text.utf8))
        #expect(builder.locationBody(records) == text)
    }

    @Test func asciiCheckSeesAHighBitAnywhere() {
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 40] {
            let plain = [UInt8](repeating: 0x7F, count: length)
            #expect(plain.withUnsafeBufferPointer(WorkingCopy.isASCII))
            for position in 0..<length {
                var bytes = plain
                bytes[position] = 0x80
                #expect(!bytes.withUnsafeBufferPointer(WorkingCopy.isASCII))
            }
        }
    }

    @Test func uuidArrayMatchesTheJSONWriter() {
        let cases: [[String]] = [[], ["plain-1", "plain-2"], ["quo\"te", "back\\slash", "tab\there", "żółw", "ctl\u{01}"]]
        for uuids in cases {
            #expect(WorkingCopy.jsonArray(uuids) == JSONValue.array(uuids.map { .string($0) }).jsonText)
        }
    }

    @Test func responseHeadIsParsedFromBytes() throws {
        let head = Array("HTTP/1.1 429 Too Many Requests\r\nRetry-After:  7 \r\nCONTENT-LENGTH: 12\r\nX-Odd\r\nConnection:\tclose".utf8)
        let parsed = try #require(HTTPClient.parseHead(head[...]))
        #expect(parsed.status == 429 && !parsed.http10)
        #expect(parsed.headers == ["retry-after": "7", "content-length": "12", "connection": "close"])
        #expect(HTTPClient.parseHead(Array("HTTP/1.0 200\r\nA: b".utf8)[...])?.http10 == true)
        #expect(HTTPClient.parseHead(Array("HTTP/1.0 200".utf8)[...])?.status == 200)
        #expect(HTTPClient.parseHead(Array("SSH-2.0-OpenSSH_9".utf8)[...]) == nil)
        #expect(HTTPClient.parseHead(Array("HTTP/1.1 abc OK".utf8)[...]) == nil)
        #expect(HTTPClient.target("HTTP://x/")?.tls == false && HTTPClient.target("http://x")?.port == 80)
        #expect(HTTPClient.target("https://x")?.tls == true && HTTPClient.target("https://x")?.port == 443)
        #expect(HTTPClient.target("http:/") == nil && HTTPClient.target("ftp://x/") == nil)
        #expect(HTTPClient.target("https://[::1]:8443/a?b=c") == HTTPClient.Target(tls: true, host: "::1", port: 8443,
                                                                                   pathAndQuery: "/a?b=c", hostHeader: "[::1]:8443"))
    }
}
