import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Small, fully known dumps built as real SQLite files.
enum Fixtures {
    static let accessToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYtODgyIiwiZXhwIjoxNzg0ODgwMDAwfQ.c2lnbmF0dXJlLXNlY3JldA"
    static let refreshToken = "rt-7f3a9c2e51d84b6aa0c1"
    static let apiKey = "ak_live_93be11f04c"

    static let config: JSONValue = [
        "url": "https://ingest.example/locations", "method": "POST", "batchSync": true, "maxBatchSize": 50,
        "headers": ["X-Api-Key": .string(apiKey)],
        "authorization": ["strategy": "JWT", "accessToken": .string(accessToken), "refreshToken": .string(refreshToken),
                          "refreshUrl": "https://ingest.example/refresh"],
        "locationFilterMaxAccuracy": 100, "logLevel": 5,
    ]

    /// A record in the SDK's wire form.
    static func record(_ i: Int, lat: Double = 52.2297, lon: Double = 21.0122, geofence: Bool = false,
                       timestamp: String? = nil, extras: JSONValue = ["fleetId": "north-42"]) -> JSONValue {
        var object: JSONObject = [
            "uuid": .string(uuid(i)), "timestamp": .string(timestamp ?? Timestamp.format(1_784_880_000 + Double(i) * 10)),
            "odometer": .double(Double(i) * 100.5),
            "coords": ["latitude": .double(lat + Double(i) * 0.001), "longitude": .double(lon), "accuracy": 8.4,
                       "altitude": 112.3, "speed": 6.7, "heading": 184.2],
            "activity": ["type": "in_vehicle", "confidence": 92], "battery": ["level": 0.63, "is_charging": false],
            "is_moving": true, "extras": extras,
        ]
        if geofence {
            object["event"] = "geofence"
            object["geofence"] = ["identifier": "depot", "action": "ENTER"]
        }
        return .object(object)
    }

    static func uuid(_ i: Int) -> String {
        let hex = String(i, radix: 16)
        return "3f9c9e2a-8b41-4b8a-9e0a-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// Current schema: 5 locations + 1 geofence, 6 log rows (one with secrets), full state.
    @discardableResult
    static func current(at path: String) throws -> DumpWriter {
        let w = try DumpWriter(path: path, layout: .current)
        for i in 1...5 { try w.insertRecord(record(i)) }
        try w.insertRecord(record(6, geofence: true))
        try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "session.start", data: ["reason": "launch"])
        try w.insertLog(ts: "2026-07-24T09:00:01.000Z", level: 3, event: "config", data: config)
        try w.insertLog(ts: "2026-07-24T09:00:02.000Z", level: 3, event: "http.request",
                        data: ["url": "https://ingest.example/locations", "method": "POST", "count": 1, "uuids": [.string(uuid(1))], "bytes": 400, "attempt": 1])
        try w.insertLog(ts: "2026-07-24T09:00:03.000Z", level: 3, event: "http.response",
                        data: ["status": 401, "count": 1, "ms": 120, "response": .string("{\"error\":\"expired\",\"token\":\"\(accessToken)\"}")], uploaded: true)
        try w.insertLog(ts: "2026-07-24T09:00:04.000Z", level: 1, event: "auth.refresh.result", data: ["success": false, "status": 400])
        try w.insertLog(ts: "2026-07-24T09:00:05.000Z", level: 2, src: "js", event: "app", message: "Bearer \(accessToken) used", data: nil as JSONValue?)
        try w.setState("config", config)
        try w.setState("auth", ["accessToken": .string(accessToken), "refreshToken": .string(refreshToken)])
        try w.setState("odometer", 502.5)
        try w.setState("http.failures", 4)
        try w.setState("http.next_attempt_at", "2026-07-24T09:05:00.000Z")
        try w.setState("device", ["platform": "android", "os": "14", "model": "Pixel 8", "sdk": "3.2.1"])
        try w.close()
        return w
    }
}

/// Damage done to a dump file the way a bad flash page does it.
enum PageDamage {
    /// Overwrites 600 bytes inside the 4 KiB page at `fraction` of the file (0.5: the middle).
    static func garble(_ path: String, at fraction: Double) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw CocoaError(.fileNoSuchFile) }
        defer { try? handle.close() }
        let pages = try handle.seekToEnd() / 4096
        try handle.seek(toOffset: UInt64(Double(pages) * fraction) * 4096 + 8)
        handle.write(Data(repeating: 0xA5, count: 600))
    }
}
