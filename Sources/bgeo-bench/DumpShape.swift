import BGeoForensics
import BGeoSimulation
import Foundation

/// A dump shaped unlike `simulate`'s benchmark dump (issue 27): the same fixes, but a different
/// balance of queue rows, log rows and upload attempts, so a cost that grows with one dimension
/// (attempts, refreshes, sessions, late rows, the legacy layout) shows in the bench.
struct DumpShape: Sendable {
    /// The name `--shapes` takes and the tables show.
    let name: String
    /// One line for the table: what the shape stands for.
    let summary: String
    /// An upload attempt after every `uploadEvery` fixes (nil: the engine never uploads).
    var uploadEvery: Int?
    /// Attempts answer 401, the refresh fails, the engine backs off: the queue keeps every fix.
    var stranded = false
    /// Extra log rows per fix (`queue.insert`, `heartbeat`, `connectivity`, `filter.reject`).
    var extraLogRowsPerFix = 0
    /// One fix line in `lateEvery` is written 40 rows after its neighbours (a row written late).
    var lateEvery: Int?
    /// A new session (`session.start` / `session.relaunch` + `motionchange`) every N fixes.
    var sessionEvery: Int?
    var legacy = false
    /// Two hours without a fix after every N fixes (a tracking gap each time).
    var gapEvery: Int?
    /// The log's fix lines hold the first half of the fixes and the queue the second half (a log
    /// kept from before the queue was cleared): each source's gaps are news to the other's.
    var splitSources = false
    /// The share of the fixes after which the engine stops uploading (the phone support gets):
    /// what follows stays queued, so every shape has a queue to read.
    var uploadsStopAt = 0.8
    /// Every JSON text with a space after each `,` and `:`, as a script writes it
    /// (`DumpWriter.spacesJSON`): the copy-through paths must take it too.
    var spacedJSON = false

    /// The shapes issue 27 names, in the order the table shows them.
    static let all: [DumpShape] = [
        DumpShape(name: "alone", summary: "every fix uploaded alone (batchSync false)", uploadEvery: 1),
        DumpShape(name: "every5", summary: "an upload attempt every 5 fixes", uploadEvery: 5),
        DumpShape(name: "every50", summary: "an upload attempt every 50 fixes", uploadEvery: 50),
        DumpShape(name: "every500", summary: "an upload attempt every 500 fixes", uploadEvery: 500),
        DumpShape(name: "log1x", summary: "nothing uploaded: the log 1× the queue", uploadEvery: nil),
        DumpShape(name: "log5x", summary: "nothing uploaded: the log 5× the queue", uploadEvery: nil, extraLogRowsPerFix: 4),
        DumpShape(name: "stranded", summary: "a stranded history: 401, failed refresh, backoff every 5 fixes; 1 % of rows late",
                  uploadEvery: 5, stranded: true, lateEvery: 100, uploadsStopAt: 1.0),
        DumpShape(name: "legacy", summary: "the legacy layout (data column, no kind, no state); an attempt every 1,000 fixes",
                  uploadEvery: 1000, legacy: true, uploadsStopAt: 0.5),
        DumpShape(name: "sessions", summary: "many short sessions (a relaunch every 20 fixes), an attempt every 20",
                  uploadEvery: 20, sessionEvery: 20, uploadsStopAt: 0.5),
        DumpShape(name: "gaps", summary: "a gap every 10 fixes; the log's fix lines the first half, the queue the second",
                  uploadEvery: nil, gapEvery: 10, splitSources: true),
        DumpShape(name: "spaced", summary: "every 50, each JSON text spaced as Python's json.dumps writes it",
                  uploadEvery: 50, spacedJSON: true),
    ]

    static func named(_ name: String) -> DumpShape? { all.first { $0.name == name } }

    /// Writes `fixes` fixes of this shape to `path` (replacing it). Deterministic.
    func write(fixes: Int, to path: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let writer = try DumpWriter(path: path, layout: legacy ? .legacy(withState: false) : .current)
        writer.spacesJSON = spacedJSON
        try writer.begin()
        let config = """
            {"url":"https://ingest.example.com/v1/locations","batchSync":\((uploadEvery ?? 1) > 1),"maxBatchSize":\(uploadEvery ?? -1),\
            "logLevel":5,"authorization":{"strategy":"JWT","accessToken":"eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3OTAwMDAwMDB9.c2lnbmF0dXJlLXNoYXBl",\
            "refreshToken":"rt-shape-secret-7f3a","refreshUrl":"https://auth.example.com/refresh"}}
            """
        if !legacy {
            try writer.setState("config", raw: config)
            try writer.setState("odometer", raw: "0")
            try writer.setState("http.failures", raw: stranded ? String(fixes / max(uploadEvery ?? 1, 1)) : "0")
        }
        var clock = ShapeClock()
        try writer.insertLog(ts: clock.text, level: 3, event: "config", data: config)
        var random = SplitMix64(seed: 27)
        var batch: [String] = []
        var queued: [(uuid: String, json: String, at: String)] = []
        var late: [(ts: String, data: String)] = []
        var failures = 0
        var latitude = 52.2297, longitude = 21.0122, odometer = 0.0
        for index in 0..<fixes {
            clock.advance(milliseconds: 5_000)
            if let every = gapEvery, index > 0, index % every == 0 { clock.advance(milliseconds: 2 * 3_600_000) }
            let logged = !splitSources || index < fixes / 2, queues = !splitSources || index >= fixes / 2
            if let every = sessionEvery, index % every == 0 {
                try writer.insertLog(ts: clock.text, level: 3, event: index % (every * 2) == 0 ? "session.start" : "session.relaunch",
                                     data: #"{"reason":"shape"}"#)
                try writer.insertLog(ts: clock.text, level: 3, event: "motionchange", message: "MOVING", data: #"{"confidence":90}"#)
            }
            latitude += random.unit() * 2e-4 - 1e-4
            longitude += random.unit() * 2e-4 - 1e-4
            odometer += 5
            let uuid = random.uuid(), at = clock.text
            let lat = DecimalText.format(latitude, places: 7), lon = DecimalText.format(longitude, places: 7)
            let odo = DecimalText.format(odometer, places: 1)
            let line = """
                {"uuid":"\(uuid)","timestamp":"\(at)","latitude":\(lat),"longitude":\(lon),"accuracy":8.0,"speed":1.0,\
                "heading":90.0,"altitude":100.0,"odometer":\(odo),"is_moving":true,"raw_latitude":\(lat),"raw_longitude":\(lon)}
                """
            if !logged {
                // Its fix is only in the queue.
            } else if let every = lateEvery, index % every == every / 2 {
                late.append((at, line))
            } else {
                try writer.insertLog(ts: at, level: 4, event: "location", data: line)
            }
            if late.count > 0, index % 40 == 0 {
                for row in late { try writer.insertLog(ts: row.ts, level: 4, event: "location", data: row.data) }
                late.removeAll()
            }
            for extra in 0..<extraLogRowsPerFix {
                switch extra % 4 {
                case 0: try writer.insertLog(ts: at, level: 5, event: "queue.insert", data: #"{"uuid":"\#(uuid)","count":\#(index + 1)}"#)
                case 1: try writer.insertLog(ts: at, level: 4, event: "heartbeat")
                case 2: try writer.insertLog(ts: at, level: 3, event: "connectivity", data: #"{"connected":true,"transport":"wifi"}"#)
                default:
                    try writer.insertLog(ts: at, level: 4, event: "filter.reject", data: """
                        {"reason":"accuracy","timestamp":"\(at)","latitude":\(lat),"longitude":\(lon),"accuracy":250.0,"implied_speed":1.0,"limit":100}
                        """)
                }
            }
            let json = """
                {"uuid":"\(uuid)","timestamp":"\(at)","odometer":\(odo),"coords":{"latitude":\(lat),"longitude":\(lon),"accuracy":8.0,\
                "altitude":100.0,"speed":1.0,"heading":90.0},"activity":{"type":"walking","confidence":90},\
                "battery":{"level":0.5,"is_charging":false},"is_moving":true,"extras":{"fleetId":"shape-7"}}
                """
            batch.append(uuid)
            if queues { queued.append((uuid, json, at)) }
            guard let every = uploadEvery, batch.count >= every, Double(index) < Double(fixes) * uploadsStopAt else {
                if queued.count >= 10_000, uploadEvery == nil || Double(index) >= Double(fixes) * uploadsStopAt { try flush(&queued, writer) }
                continue
            }
            clock.advance(milliseconds: 200)
            let uuids = batch.map { "\"\($0)\"" }.joined(separator: ",")
            try writer.insertLog(ts: clock.text, level: 3, event: "http.request", data: """
                {"url":"https://ingest.example.com/v1/locations","method":"POST","count":\(batch.count),"uuids":[\(uuids)],"bytes":\(batch.count * 310),"attempt":1}
                """)
            clock.advance(milliseconds: 300)
            if stranded {
                try writer.insertLog(ts: clock.text, level: 3, event: "http.response",
                                     data: #"{"status":401,"count":\#(batch.count),"ms":300,"response":"{\"error\":\"token expired\"}"}"#)
                try writer.insertLog(ts: clock.text, level: 3, event: "auth.refresh", data: #"{"url":"https://auth.example.com/refresh"}"#)
                clock.advance(milliseconds: 100)
                try writer.insertLog(ts: clock.text, level: 1, event: "auth.refresh.result", data: #"{"success":false,"status":400}"#)
                failures += 1
                let delay = min(30 << min(failures - 1, 10), 3600)
                try writer.insertLog(ts: clock.text, level: 3, event: "http.backoff",
                                     data: #"{"failures":\#(failures),"delay_s":\#(delay),"next_attempt_at":"\#(clock.text)"}"#)
            } else {
                try writer.insertLog(ts: clock.text, level: 3, event: "http.response",
                                     data: #"{"status":200,"count":\#(batch.count),"ms":300,"response":"ok"}"#)
                queued.removeAll(keepingCapacity: true)
            }
            batch.removeAll(keepingCapacity: true)
            if queued.count >= 10_000 { try flush(&queued, writer) }
        }
        for row in late { try writer.insertLog(ts: row.ts, level: 4, event: "location", data: row.data) }
        try flush(&queued, writer)
        try writer.close()
    }

    private func flush(_ queued: inout [(uuid: String, json: String, at: String)], _ writer: DumpWriter) throws {
        for row in queued { try writer.insertRecord(uuid: row.uuid, timestamp: row.at, json: row.json) }
        queued.removeAll(keepingCapacity: true)
    }
}

/// The shapes' clock: milliseconds from 2026-03-01T06:00:00Z, formatted as the SDK writes them.
struct ShapeClock {
    private(set) var milliseconds: Int64 = 1_772_344_800_000
    mutating func advance(milliseconds step: Int64) { milliseconds += step }
    var text: String { Timestamp.format(Double(milliseconds) / 1000) }
}
