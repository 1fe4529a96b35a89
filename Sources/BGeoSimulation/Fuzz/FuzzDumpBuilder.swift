import BGeoForensics
import Foundation

/// Writes the base dump of a fuzz case through `DumpWriter` (real SQLite files): a small but
/// complete day — queued records, the log vocabulary (config with tokens, uploads, backoffs,
/// location lines, filter rejects), engine state — in the shape the case asks for. The writer
/// is returned open, so row-level mutations can still change rows.
struct FuzzDumpBuilder {
    /// How the rows are laid out in time and space.
    enum Shape: String, CaseIterable, Sendable {
        case normal, emptyQueue, emptyLog, oneRow, equalTimestamps, backwardsTimestamps, poles, antimeridian
    }

    enum Layout: String, CaseIterable, Sendable {
        case current, currentWAL, legacy, legacyWithoutState, longping
    }

    var layout: Layout
    var shape: Shape

    /// Builds the dump at `path`; `rng` decides the counts, times and values.
    func build(at path: String, rng: inout SplitMix64) throws -> DumpWriter {
        let writerLayout: DumpWriter.Layout
        switch layout {
        case .current, .currentWAL: writerLayout = .current
        case .legacy: writerLayout = .legacy(withState: true)
        case .legacyWithoutState: writerLayout = .legacy(withState: false)
        case .longping: writerLayout = .longping
        }
        let writer = try DumpWriter(path: path, layout: writerLayout, wal: layout == .currentWAL)
        let start = 1_784_880_000.0 + Double(rng.int(0...86_400))
        var records = shape == .emptyQueue ? 0 : (shape == .oneRow ? 1 : rng.int(2...30))
        var logs = shape == .emptyLog ? 0 : (shape == .oneRow ? 1 : rng.int(2...50))
        if layout == .longping { logs = 0 }
        if layout == .currentWAL, rng.chance(0.5) {
            // Part of the day checkpointed into the main file, the rest only in the WAL.
            try writeRows(writer, records: records / 2, logs: logs / 2, start: start, rng: &rng, offset: 0)
            try writer.checkpoint()
            records -= records / 2
            logs -= logs / 2
            try writeRows(writer, records: records, logs: logs, start: start + 5000, rng: &rng, offset: 1000)
        } else {
            try writeRows(writer, records: records, logs: logs, start: start, rng: &rng, offset: 0)
        }
        if layout != .legacyWithoutState, layout != .longping { try writeState(writer, rng: &rng) }
        return writer
    }

    private func time(_ i: Int, start: Double, rng: inout SplitMix64) -> Double {
        switch shape {
        case .equalTimestamps: return start
        case .backwardsTimestamps: return start - Double(i) * 7
        default: return start + Double(i) * Double(rng.int(1...120))
        }
    }

    private func position(_ i: Int, rng: inout SplitMix64) -> (Double, Double) {
        switch shape {
        case .poles: return (i % 2 == 0 ? 90 : -90, rng.double(-180...180))
        case .antimeridian: return (rng.double(-10...10), i % 2 == 0 ? 179.9999 : -179.9999)
        default: return (52.2 + rng.gaussian(0.01), 21.0 + rng.gaussian(0.01))
        }
    }

    private func writeRows(_ writer: DumpWriter, records: Int, logs: Int, start: Double, rng: inout SplitMix64, offset: Int) throws {
        try writer.begin()
        for i in 0..<records {
            let t = time(i, start: start, rng: &rng)
            let (lat, lon) = position(i, rng: &rng)
            let geofence = rng.chance(0.15)
            var record: JSONObject = [
                "uuid": .string("fz-\(offset + i)-" + rng.uuid()), "timestamp": .string(Timestamp.format(t)),
                "odometer": .double(Double(i) * 37.5),
                "coords": ["latitude": .double(lat), "longitude": .double(lon), "accuracy": .double(rng.double(3...60)),
                           "speed": .double(rng.double(0...30)), "heading": .double(rng.double(0...359)), "altitude": 100],
                "activity": ["type": "in_vehicle", "confidence": 80], "battery": ["level": 0.5, "is_charging": false],
                "is_moving": .bool(rng.chance(0.8)), "extras": ["fleetId": "north-42"],
            ]
            if geofence {
                record["event"] = "geofence"
                record["geofence"] = ["identifier": "depot", "action": rng.chance(0.5) ? "ENTER" : "EXIT"]
            }
            try writer.insertRecord(.object(record), attempts: rng.int(0...3))
        }
        let token = FuzzValues.jwt(exp: String(Int(start) + 3600))
        let config: JSONValue = [
            "url": "https://ingest.example/locations", "method": "POST", "batchSync": .bool(rng.chance(0.5)), "maxBatchSize": 10,
            "headers": ["X-Api-Key": "ak_live_fuzz"], "logLevel": 5, "locationFilterMaxAccuracy": 100,
            "authorization": ["strategy": "JWT", "accessToken": .string(token), "refreshToken": "rt-fuzz",
                              "refreshUrl": "https://ingest.example/refresh"],
        ]
        for i in 0..<logs {
            let ts = Timestamp.format(time(i, start: start, rng: &rng) + 0.5)
            switch i == 0 ? 0 : rng.int(1...9) {
            case 0: try writer.insertLog(ts: ts, level: 3, event: "config", data: config)
            case 1:
                try writer.insertLog(ts: ts, level: 3, event: "http.request",
                                     data: ["url": "https://ingest.example/locations", "method": "POST", "count": 1,
                                            "uuids": [.string("fz-\(i)")], "bytes": 400, "attempt": 1])
            case 2:
                try writer.insertLog(ts: ts, level: 3, event: "http.response",
                                     data: ["status": .int(Int64([200, 401, 500, 0, 429][rng.int(0...4)])), "count": 1, "ms": 120,
                                            "response": "{\"ok\":false}"])
            case 3:
                try writer.insertLog(ts: ts, level: 3, event: "http.backoff",
                                     data: ["failures": .int(Int64(rng.int(1...9))), "delay_s": .double(rng.double(1...300)),
                                            "next_attempt_at": .string(ts)])
            case 4:
                let (lat, lon) = position(i, rng: &rng)
                try writer.insertLog(ts: ts, level: 4, event: "location",
                                     data: ["uuid": .string("fz-log-\(i)"), "timestamp": .string(ts), "latitude": .double(lat),
                                            "longitude": .double(lon), "accuracy": 8, "speed": 3, "heading": 10, "altitude": 100,
                                            "odometer": .double(Double(i) * 10), "is_moving": true,
                                            "raw_latitude": .double(lat), "raw_longitude": .double(lon)])
            case 5:
                let (lat, lon) = position(i, rng: &rng)
                try writer.insertLog(ts: ts, level: 4, event: "filter.reject",
                                     data: ["reason": "accuracy", "timestamp": .string(ts), "latitude": .double(lat),
                                            "longitude": .double(lon), "accuracy": 500, "implied_speed": 3, "limit": 100])
            case 6: try writer.insertLog(ts: ts, level: 5, event: "queue.insert", data: ["uuid": .string("fz-\(i)"), "count": .int(Int64(i))])
            case 7: try writer.insertLog(ts: ts, level: 3, event: "motionchange", message: "MOVING", data: ["confidence": 90])
            case 8: try writer.insertLog(ts: ts, level: 2, src: "js", event: "app", message: "app line \(i)", data: nil as JSONValue?)
            default: try writer.insertLog(ts: ts, level: 3, event: "session.relaunch", data: ["reason": "killed"])
            }
        }
        try writer.commit()
    }

    private func writeState(_ writer: DumpWriter, rng: inout SplitMix64) throws {
        try writer.setState("auth", ["accessToken": .string(FuzzValues.jwt(exp: "1784883600")), "refreshToken": "rt-fuzz"])
        try writer.setState("odometer", .double(rng.double(0...50_000)))
        try writer.setState("http.failures", .int(Int64(rng.int(0...9))))
        try writer.setState("http.next_attempt_at", "2026-07-24T09:05:00.000Z")
        try writer.setState("device", ["platform": "android", "os": "14", "model": "Pixel 8", "sdk": "3.2.1"])
        if rng.chance(0.5) {
            try writer.setState("config", ["url": "https://ingest.example/locations", "batchSync": true, "maxBatchSize": 5,
                                           "authorization": ["accessToken": .string(FuzzValues.jwt(exp: "1784883600")),
                                                             "refreshToken": "rt-fuzz"]])
        }
    }
}
