import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// A small real dump whose replay counts are known by construction:
///
/// - a straight walk north, 100 m every 10 s: log-only fixes `l-5`…`l-1` (uploaded, so only in
///   the log), then queue fixes `q-0`…`q-19` (recorded odometer 500 → 2900, span 2400 m);
/// - `q-0`…`q-4` also logged as `location` lines with raw_longitude 21.00001 (raw must win);
/// - planted teleports `tp-5`, `tp-15` (30 km away, 5 s after a walk fix) and a `filter.reject`
///   teleport line at +84 s;
/// - poor accuracy `acc-3`, `acc-7`, `acc-9` (500 m), `acc-17` (unknown) and a `filter.reject`
///   accuracy line (300 m);
/// - a `filter.adjust` line for `q-12` whose raw position was 800 m east (80.6 m/s from `q-11`);
/// - one geofence record, one unreadable location line, one unrelated log line.
///
/// Under the recorded config (Conservative, maxAccuracy 50): 33 fixes, 24 accepted,
/// 5 rejected for accuracy (1 unknown), 4 as teleports, 0 for time.
enum ReplayFixture {
    static let t0 = 1_785_000_000.0
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    static let dLat = 100 / metresPerDegree
    static let badLineId: Int64 = 99

    static func lat(_ step: Int) -> Double { 52 + Double(step) * dLat }
    static func ts(_ seconds: Double) -> String { Timestamp.format(t0 + seconds) }

    static func record(_ uuid: String, _ seconds: Double, lat: Double, lon: Double = 21, accuracy: Double,
                       odometer: Double? = nil) -> JSONValue {
        var object: JSONObject = ["uuid": .string(uuid), "timestamp": .string(ts(seconds))]
        if let odometer { object["odometer"] = .double(odometer) }
        object["coords"] = ["latitude": .double(lat), "longitude": .double(lon), "accuracy": .double(accuracy), "speed": 10.0]
        object["is_moving"] = true
        return .object(object)
    }

    /// Writes the dump. `config` nil leaves state.config out (engine defaults, or a config log line).
    static func write(to path: String, config: JSONValue? = ["url": "https://example.test/loc", "locationFilterMaxAccuracy": 50,
                                                            "locationFilterPolicy": "conservative",
                                                            "authorization": ["accessToken": "secret-token"]],
                      configLogLine: JSONValue? = nil) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        if let config { try w.setState("config", config) }
        // Queue, in drain order (row ids follow insertion, not time, for the planted rows).
        for i in 0..<20 {
            try w.insertRecord(record("q-\(i)", Double(10 * i), lat: lat(i), accuracy: 10, odometer: 1000 + Double(100 * i)))
        }
        for i in [5, 15] { try w.insertRecord(record("tp-\(i)", Double(10 * i + 5), lat: 52.27, accuracy: 10)) }
        for i in [3, 7, 9] { try w.insertRecord(record("acc-\(i)", Double(10 * i + 3), lat: lat(i), accuracy: 500)) }
        try w.insertRecord(record("acc-17", 173, lat: lat(17), accuracy: -1))
        try w.insertRecord(["uuid": "gf-1", "timestamp": .string(ts(42)), "event": "geofence",
                            "coords": ["latitude": .double(lat(4)), "longitude": 21.0, "accuracy": 10.0],
                            "geofence": ["identifier": "depot", "action": "ENTER"]])
        // Log.
        if let configLogLine { try w.insertLog(ts: ts(-100), level: 3, event: "config", data: configLogLine) }
        for k in 1...5 {
            try w.insertLog(ts: ts(Double(-10 * k)), level: 4, event: "location", data: [
                "uuid": .string("l-\(k)"), "timestamp": .string(ts(Double(-10 * k))), "latitude": .double(lat(-k)),
                "longitude": 21.0, "accuracy": 10.0, "odometer": .double(1000 - Double(100 * k)),
                "raw_latitude": .double(lat(-k)), "raw_longitude": 21.0,
            ])
        }
        for i in 0..<5 {
            try w.insertLog(ts: ts(Double(10 * i)), level: 4, event: "location", data: [
                "uuid": .string("q-\(i)"), "timestamp": .string(ts(Double(10 * i))), "latitude": .double(lat(i)),
                "longitude": 21.0, "accuracy": 10.0, "odometer": .double(1000 + Double(100 * i)),
                "raw_latitude": .double(lat(i)), "raw_longitude": 21.00001,
            ])
        }
        try w.insertLog(ts: ts(84), level: 4, event: "filter.reject", data: [
            "reason": "teleport", "timestamp": .string(ts(84)), "latitude": 52.27, "longitude": 21.0, "accuracy": 10.0,
            "implied_speed": 6000.0, "limit": 60.0,
        ])
        try w.insertLog(ts: ts(106), level: 4, event: "filter.reject", data: [
            "reason": "accuracy", "timestamp": .string(ts(106)), "latitude": .double(lat(10)), "longitude": 21.0,
            "accuracy": 300.0, "limit": 50.0,
        ])
        let east800 = 800 / (metresPerDegree * cos(52 * Double.pi / 180))
        try w.insertLog(ts: ts(120), level: 4, event: "filter.adjust", data: [
            "timestamp": .string(ts(120)), "latitude": .double(lat(12)), "longitude": .double(21 + east800),
            "adjusted_latitude": .double(lat(12)), "adjusted_longitude": 21.0, "implied_speed": 80.6, "limit": 60.0,
        ])
        try w.insertLog(ts: ts(130), level: 3, event: "http.request", data: ["url": "https://example.test/loc", "count": 1])
        try w.database.execute("""
            INSERT INTO log_entries(id, ts, level, src, event, message, data) VALUES
            (\(badLineId), '\(ts(135))', 4, 'native', 'location', NULL, '{"uuid": "broken", "latitude": ')
            """)
        try w.close()
    }
}
