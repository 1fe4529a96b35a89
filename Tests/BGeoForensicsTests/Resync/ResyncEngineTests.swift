import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync
@testable import BGeoSimulation

/// Scripted transport: answers from a closure and remembers every request.
final class ScriptedTransport: HTTPSending {
    var requests: [HTTPRequestSpec] = []
    let answer: (HTTPRequestSpec, Int) -> HTTPResult
    init(_ answer: @escaping (HTTPRequestSpec, Int) -> HTTPResult) { self.answer = answer }
    func send(_ request: HTTPRequestSpec) -> HTTPResult {
        requests.append(request)
        return answer(request, requests.count)
    }
    /// uuids carried by location requests that got a 2xx are tracked by the tests themselves.
}

@Suite struct ResyncEngineTests {
    static func makeDump(_ dir: TestDirectory, count: Int, config: JSONValue, brokenRow: Bool = false) throws -> String {
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        for i in 1...count { try w.insertRecord(Fixtures.record(i)) }
        if brokenRow { try w.insertRecord(uuid: "broken-1", timestamp: "2026-07-24T09:00:00.000Z", json: "{not json") }
        try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "session.start", data: ["reason": "launch"])
        try w.setState("config", config)
        try w.close()
        return path
    }

    static func uuids(in request: HTTPRequestSpec) -> [String] {
        guard let body = try? JSONParser.parse(request.bodyText) else { return [] }
        switch body["location"] {
        case .array(let items)?: return items.compactMap { $0["uuid"]?.stringValue }
        case .object?: return [body["location"]?["uuid"]?.stringValue].compactMap { $0 }
        default: return [body["uuid"]?.stringValue].compactMap { $0 }
        }
    }

    func engine(_ dumpPath: String, work: String, policy: UploadPolicy = .bgeo, maxAttempts: Int? = nil,
                transport: ScriptedTransport) throws -> (ResyncEngine, Dump) {
        let dump = try Dump(path: dumpPath)
        let settings = try ResyncSettings(config: dump.recordedConfig().config)
        let wc = try WorkingCopy(path: work, dump: dump)
        let tokens = ResyncSetup.initialTokens(settings: settings, explicit: nil, stored: try wc.storedTokens(),
                                               stateAuth: dump.engineState().auth)
        var scaled = policy
        scaled.backoff = scaled.backoff.scaled(initial: 0.001, cap: 0.002)
        let engine = ResyncEngine(workingCopy: wc, settings: settings, tokens: tokens,
                                  options: ResyncOptions(policy: scaled, maxAttempts: maxAttempts, url: "http://test/locs"),
                                  transport: transport, redactor: Redactor(), sleep: { _ in })
        return (engine, dump)
    }

    @Test func poisonInsideABatchIsIsolatedAndNothingIsLost() throws {
        let dir = TestDirectory("resync-engine")
        let path = try Self.makeDump(dir, count: 10, config: ["batchSync": true, "maxBatchSize": 4], brokenRow: true)
        let poison = Fixtures.uuid(6)
        var delivered: [String] = []
        let transport = ScriptedTransport { request, n in
            let ids = Self.uuids(in: request)
            if ids.contains(poison) { return HTTPResult(status: 422, body: "bad record") }
            if n == 1 { return HTTPResult(status: 503, body: "busy") }
            delivered += ids
            return HTTPResult(status: 200, body: "ok")
        }
        let (engine, _) = try engine(path, work: dir.file("work.db"), transport: transport)
        try engine.drainLocations()
        #expect(Set(delivered) == Set((1...10).filter { $0 != 6 }.map(Fixtures.uuid)))
        #expect(delivered.count == 9)
        let quarantine = try engine.workingCopy.quarantined()
        #expect(Set(quarantine.map(\.uuid)) == [poison, "broken-1"])
        #expect(quarantine.first { $0.uuid == poison }?.status == 422)
        #expect(engine.workingCopy.remaining == 0)
        // 503, batch 1-4 ok, 5-8 → 422 then split: 5 ok, 6 quarantined, 7 ok, 8 ok, then 9-10.
        #expect(transport.requests.map { Self.uuids(in: $0).count } == [4, 4, 4, 1, 1, 1, 1, 2])
        #expect(try engine.workingCopy.count("journal") == transport.requests.count)
    }

    @Test func refreshRotatesTokensAndRetriesTheSameBatch() throws {
        let dir = TestDirectory("resync-refresh")
        let path = try Self.makeDump(dir, count: 3, config: [
            "batchSync": true, "authorization": ["accessToken": "old-access", "refreshToken": "old-refresh",
                                                 "refreshUrl": "http://test/refresh"]])
        let transport = ScriptedTransport { request, _ in
            if request.url.hasSuffix("/refresh") {
                #expect(request.bodyText == #"{"refresh_token":"old-refresh"}"#)
                return HTTPResult(status: 200, body: #"{"data":{"token":"new-access"}}"#)
            }
            return request.header("Authorization") == "Bearer new-access" ? HTTPResult(status: 200, body: "")
                : HTTPResult(status: 401, body: "expired")
        }
        let (engine, _) = try engine(path, work: dir.file("work.db"), transport: transport)
        try engine.drainLocations()
        #expect(transport.requests.map(\.url) == ["http://test/locs", "http://test/refresh", "http://test/locs"])
        #expect(engine.tokens == .init(accessToken: "new-access", refreshToken: "old-refresh"))
        #expect(try engine.workingCopy.storedTokens() == .init(accessToken: "new-access", refreshToken: "old-refresh"))
        #expect(engine.delivered == 3 && engine.refreshes == 1)
    }

    @Test func maxAttemptsStopsWithRecordsStillQueuedThenResumes() throws {
        let dir = TestDirectory("resync-resume")
        let path = try Self.makeDump(dir, count: 5, config: [:])
        let down = ScriptedTransport { _, _ in HTTPResult(status: 0, body: "network error") }
        do {
            let (first, _) = try engine(path, work: dir.file("work.db"), maxAttempts: 3, transport: down)
            try first.drainLocations()
            #expect(down.requests.count == 3)
            #expect(first.stopReason?.contains("--max-attempts 3") == true)
            #expect(first.workingCopy.remaining == 5)
            // While a run holds the working copy, a second one cannot open it.
            #expect(throws: SQLiteError.self) { try WorkingCopy(path: dir.file("work.db"), dump: try Dump(path: path)) }
        }
        let up = ScriptedTransport { _, _ in HTTPResult(status: 201, body: "") }
        let (second, _) = try engine(path, work: dir.file("work.db"), transport: up)
        try second.drainLocations()
        #expect(up.requests.map { Self.uuids(in: $0) } == (1...5).map { [Fixtures.uuid($0)] })
        #expect(try second.workingCopy.deliveredTotal() == 5)
        #expect(try second.workingCopy.count("journal") == 8)
    }

    @Test func workingCopyOfAnotherDumpIsRefused() throws {
        let dir = TestDirectory("resync-mismatch")
        let a = try Self.makeDump(dir, count: 2, config: [:])
        _ = try WorkingCopy(path: dir.file("work.db"), dump: try Dump(path: a))
        let otherDir = TestDirectory("resync-mismatch-b")
        let b = try Self.makeDump(otherDir, count: 3, config: [:])
        #expect(throws: WorkingCopy.Mismatch.self) { try WorkingCopy(path: dir.file("work.db"), dump: try Dump(path: b)) }
    }

    @Test func longPingOther4xxCountsAttemptsAndDropsAtThree() throws {
        let dir = TestDirectory("resync-longping")
        let path = dir.file("lp.db")
        let w = try DumpWriter(path: path, layout: .longping)
        try w.insertRecord(Fixtures.record(1), attempts: 1)
        try w.insertRecord(Fixtures.record(2))
        try w.close()
        let transport = ScriptedTransport { request, _ in
            Self.uuids(in: request).contains(Fixtures.uuid(1)) ? HTTPResult(status: 409, body: "conflict") : HTTPResult(status: 200, body: "")
        }
        let (engine, dump) = try engine(path, work: dir.file("work.db"), policy: .longping, transport: transport)
        #expect(dump.layout.format == .longping)
        try engine.drainLocations()
        // Record 1 had 1 attempt: two more 409s reach 3 and it is quarantined; record 2 then goes.
        #expect(transport.requests.count == 3)
        #expect(try engine.workingCopy.quarantined().map(\.uuid) == [Fixtures.uuid(1)])
        #expect(engine.workingCopy.remaining == 0)
    }

    @Test func longPing413HalvesTheBatchUntilItFits() throws {
        let dir = TestDirectory("resync-halve")
        let path = try Self.makeDump(dir, count: 4, config: ["batchSync": true, "maxBatchSize": 4])
        let transport = ScriptedTransport { request, _ in
            Self.uuids(in: request).count > 1 ? HTTPResult(status: 413, body: "too large") : HTTPResult(status: 200, body: "")
        }
        let (engine, _) = try engine(path, work: dir.file("work.db"), policy: .longping, transport: transport)
        try engine.drainLocations()
        #expect(transport.requests.map { Self.uuids(in: $0).count } == [4, 2, 1, 1, 1, 1])
        #expect(engine.delivered == 4 && engine.quarantinedThisRun == 0)
        #expect(try engine.workingCopy.progress("batch_limit") == 1)
    }

    @Test func logLaneMarksUploadedOn2xxAnd4xxRetries5xx() throws {
        let dir = TestDirectory("resync-logs")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        for i in 0..<250 { try w.insertLog(ts: Timestamp.format(1_784_880_000 + Double(i)), level: 1 + i % 5, event: "heartbeat", data: nil as JSONValue?) }
        try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "done", message: "already", data: nil as JSONValue?, uploaded: true)
        try w.close()
        let transport = ScriptedTransport { _, n in HTTPResult(status: [503, 200, 400, 200][min(n - 1, 3)], body: "") }
        let dump = try Dump(path: path)
        let wc = try WorkingCopy(path: dir.file("work.db"), dump: dump)
        let engine = ResyncEngine(workingCopy: wc, settings: try ResyncSettings(config: SDKConfig()),
                                  tokens: .init(accessToken: nil, refreshToken: nil),
                                  options: ResyncOptions(policy: .bgeo, url: "http://test/locs", logURL: "http://test/logs"),
                                  transport: transport, redactor: Redactor(), sleep: { _ in })
        try engine.drainLogs()
        #expect(transport.requests.count == 4)
        let sizes = try transport.requests.map { try #require(JSONParser.parse($0.bodyText)["events"]?.arrayValue?.count) }
        #expect(sizes == [100, 100, 100, 50])
        #expect(wc.pendingLogs == 0 && engine.logsUploaded == 250)
    }
}
