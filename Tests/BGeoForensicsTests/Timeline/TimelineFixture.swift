import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Writes a real SQLite dump whose history is known by construction: every helper advances a
/// clock and returns the log row id it wrote, so tests can assert exact row ids.
final class TimelineFixture {
    let writer: DumpWriter
    let path: String
    var clock: Double
    private var fixCounter = 0

    static let start = 1_785_000_000.0  // 2026-07-25T17:20:00Z

    init(path: String, layout: DumpWriter.Layout = .current, start: Double = TimelineFixture.start) throws {
        self.path = path
        writer = try DumpWriter(path: path, layout: layout)
        clock = start
        try writer.begin()
    }

    func ts(_ t: Double? = nil) -> String { Timestamp.format(t ?? clock) }

    @discardableResult
    func log(_ event: String, level: Int = 3, message: String? = nil, _ data: JSONValue? = nil, after seconds: Double = 1,
             src: String = "native") throws -> Int64 {
        clock += seconds
        return try writer.insertLog(ts: ts(), level: level, src: src, event: event, message: message, data: data)
    }

    static let authorizedConfig: JSONValue = [
        "url": "https://ingest.example/locations?api_key=SECRET-KEY-123456",
        "batchSync": true, "maxBatchSize": 25,
        "authorization": ["strategy": "JWT", "accessToken": .string(TimelineFixture.expiredJWT),
                          "refreshToken": "refresh-token-abcdef", "refreshUrl": "https://ingest.example/auth/refresh"],
    ]

    static let plainConfig: JSONValue = ["url": "https://ingest.example/locations", "batchSync": true, "maxBatchSize": 25]

    /// A JWT whose exp is 2026-07-01 (expired for every fixture).
    static var expiredJWT: String {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        return b64("{\"alg\":\"HS256\",\"typ\":\"JWT\"}") + "." + b64("{\"sub\":\"dev-882\",\"exp\":1782864000}") + ".c2lnbmF0dXJlLXNpZ25hdHVyZQ"
    }

    func config(_ config: JSONValue, inState: Bool = true) throws {
        if inState { try writer.setState("config", config) }
        try log("config", config)
    }

    /// A fix: a `location` log line (uploaded history) and optionally a queue row (pending).
    @discardableResult
    func fix(after seconds: Double = 10, moving: Bool = true, queued: Bool = false, logged: Bool = true,
             attempts: Int = 0) throws -> String {
        clock += seconds
        fixCounter += 1
        let uuid = String(format: "00000000-0000-4000-8000-%012x", fixCounter)
        let record: JSONValue = [
            "uuid": .string(uuid), "timestamp": .string(ts()), "is_moving": .bool(moving),
            "coords": ["latitude": .double(52.2 + Double(fixCounter) * 1e-4), "longitude": 21.0, "accuracy": 8.0,
                       "speed": .double(moving ? 6.5 : 0)],
        ]
        if queued { try writer.insertRecord(record, createdAt: ts(), attempts: attempts) }
        if logged {
            try writer.insertLog(ts: ts(), level: 4, event: "location",
                                 data: ["uuid": .string(uuid), "timestamp": .string(ts()), "latitude": 52.2, "longitude": 21.0,
                                        "accuracy": 8.0, "speed": .double(moving ? 6.5 : 0), "is_moving": .bool(moving)])
        }
        return uuid
    }

    @discardableResult
    func request(_ uuids: [String], url: String = "https://ingest.example/locations") throws -> Int64 {
        try log("http.request", ["url": .string(url), "method": "POST", "count": .int(Int64(uuids.count)),
                                 "uuids": .array(uuids.map { .string($0) }), "bytes": 1200, "attempt": 1])
    }

    @discardableResult
    func response(_ status: Int, count: Int, body: String = "") throws -> Int64 {
        try log("http.response", ["status": .int(Int64(status)), "count": .int(Int64(count)), "ms": 120,
                                  "response": .string(body)])
    }

    @discardableResult
    func backoff(failures: Int, delay: Double) throws -> Int64 {
        try log("http.backoff", ["failures": .int(Int64(failures)), "delay_s": .double(delay),
                                 "next_attempt_at": .string(ts(clock + delay))])
    }

    /// One failed upload answered on the BGeo schedule: request, response, the backoff after
    /// failure `n`, and the wait (plus `extraWait`). Returns the response row.
    @discardableResult
    func failedAttempt(_ uuids: [String], status: Int, failures n: Int, body: String = "", extraWait: Double = 0) throws -> Int64 {
        try request(uuids)
        let row = try response(status, count: uuids.count, body: body)
        let delay = BackoffSchedule.bgeo.delay(afterFailures: n)
        try backoff(failures: n, delay: delay)
        clock += delay + extraWait
        return row
    }

    @discardableResult
    func drop(_ uuids: [String], status: Int) throws -> Int64 {
        try log("queue.drop", level: 2, ["uuids": .array(uuids.map { .string($0) }), "status": .int(Int64(status))])
    }

    func close() throws { try writer.close() }
}
