import BGeoForensics
import Foundation

/// A small, deterministic dump that exercises every part of a report and a GPX export: a drive
/// with smoothing, an adjusted and rejected fixes (accuracy, teleport), a tracking gap with a
/// process relaunch, geofence events, failing then succeeding uploads with backoff, queue depth
/// lines, a config holding secrets, and hostile customer strings (`<script>` in extras and in a
/// log message). Tests and the benchmark build their fixtures with it.
public enum ReportDemoDump {
    /// Secrets planted in the config; none may appear in a report without --show-secrets.
    public static let plantedSecrets = ["s3cr3t-access-token-planted", "r3fresh-token-planted-value", "planted-api-key-123456"]
    /// What the planted scripts would do if they ever ran.
    public static let plantedMarker = "PWNED-BY-EXTRAS"

    /// Writes the dump. `fixes` sets the track length (≥ 40).
    public static func write(to path: String, fixes: Int = 240, start: Double = 1_785_000_000) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        let config: JSONValue = [
            "url": "https://api.example.invalid/locations", "autoSync": true, "batchSync": true, "maxBatchSize": 50,
            "headers": ["X-Api-Key": .string(plantedSecrets[2])],
            "authorization": ["strategy": "JWT", "accessToken": .string(plantedSecrets[0]),
                              "refreshToken": .string(plantedSecrets[1]), "refreshUrl": "https://api.example.invalid/refresh"],
            "locationFilterMaxAccuracy": 100, "locationFilterMaxSpeed": 60, "locationFilterPolicy": "Adjust", "logLevel": 5,
        ]
        try w.setState("config", config)
        try w.setState("auth", ["accessToken": .string(plantedSecrets[0]), "refreshToken": .string(plantedSecrets[1])])
        try w.setState("http.failures", 2)
        try w.setState("device", ["platform": "android", "os": "14", "model": "Pixel <b>8</b>", "sdk": "4.2.0"])
        func ts(_ t: Double) -> String { Timestamp.format(t) }
        try w.insertLog(ts: ts(start - 5), level: 3, event: "session.start", data: ["reason": "launch"])
        try w.insertLog(ts: ts(start - 4), level: 3, event: "config", data: config)
        let script = "<script>document.title='\(plantedMarker)';document.body.insertAdjacentHTML('beforeend','<div id=\"pwned\">\(plantedMarker)</div>')</script>"
        try w.insertLog(ts: ts(start - 3), level: 3, src: "js", event: "app", message: "user note " + script + " </script><img src=x onerror=alert(1)>",
                        data: ["note": .string(script)])
        var lat = 52.2297, lon = 21.0122
        var odometer = 0.0
        var depth = 0
        var queued: [String] = []
        let gapAt = fixes / 2
        var t = start
        for i in 0..<fixes {
            if i == gapAt {
                try w.insertLog(ts: ts(t + 60), level: 3, event: "session.relaunch", data: ["reason": "process killed"])
                t += 40 * 60  // a 40-minute gap
            }
            t += 10
            let heading = Double(i) * 3.0
            let step = 60.0  // metres per 10 s
            let dLat = cos(heading * .pi / 180) * step / 111_320
            let dLon = sin(heading * .pi / 180) * step / (111_320 * cos(lat * .pi / 180))
            lat += dLat
            lon += dLon
            odometer += step
            let uuid = String(format: "00000000-0000-4000-8000-%012x", i)
            let accuracy = 5.0 + Double(i % 7)
            if i % 37 == 5 {
                try w.insertLog(ts: ts(t), level: 4, event: "filter.reject",
                                data: ["reason": "accuracy", "timestamp": .string(ts(t)), "latitude": .double(lat + 0.001),
                                       "longitude": .double(lon), "accuracy": 350.0, "implied_speed": 3.0, "limit": 100])
                continue
            }
            if i % 53 == 20 {
                try w.insertLog(ts: ts(t), level: 4, event: "filter.reject",
                                data: ["reason": "teleport", "timestamp": .string(ts(t)), "latitude": .double(lat + 0.03),
                                       "longitude": .double(lon - 0.02), "accuracy": 12.0, "implied_speed": 410.0, "limit": 60])
                continue
            }
            if i % 61 == 30 {
                try w.insertLog(ts: ts(t), level: 4, event: "filter.adjust",
                                data: ["timestamp": .string(ts(t)), "latitude": .double(lat + 0.006), "longitude": .double(lon + 0.004),
                                       "adjusted_latitude": .double(lat), "adjusted_longitude": .double(lon), "implied_speed": 75.0, "limit": 60])
            }
            let record: JSONValue = [
                "uuid": .string(uuid), "timestamp": .string(ts(t)), "odometer": .double(odometer),
                "coords": ["latitude": .double(lat), "longitude": .double(lon), "accuracy": .double(accuracy),
                           "speed": .double(6.0 + Double(i % 5)), "heading": .double(heading.truncatingRemainder(dividingBy: 360)),
                           "altitude": 112.5],
                "is_moving": true, "activity": ["type": "in_vehicle", "confidence": 90],
                "extras": i == 3 ? ["fleetId": "north-42", "note": .string(script)] : ["fleetId": "north-42"],
            ]
            if i < fixes * 3 / 4 {
                // Uploaded: survives only as a location log line.
                try w.insertLog(ts: ts(t), level: 4, event: "location",
                                data: ["uuid": .string(uuid), "timestamp": .string(ts(t)), "latitude": .double(lat),
                                       "longitude": .double(lon), "accuracy": .double(accuracy), "speed": .double(6.0 + Double(i % 5)),
                                       "heading": .double(heading.truncatingRemainder(dividingBy: 360)), "altitude": 112.5,
                                       "odometer": .double(odometer), "is_moving": true,
                                       "raw_latitude": .double(lat + 0.00002), "raw_longitude": .double(lon - 0.00001)])
                depth += 1
                try w.insertLog(ts: ts(t), level: 5, event: "queue.insert", data: ["uuid": .string(uuid), "count": .int(Int64(depth))])
                queued.append(uuid)
                if depth >= 20 {
                    let batch = queued
                    try w.insertLog(ts: ts(t + 1), level: 3, event: "http.request",
                                    data: ["url": "https://api.example.invalid/locations", "method": "POST", "count": .int(Int64(batch.count)),
                                           "uuids": .array(batch.map { .string($0) }), "bytes": 9000, "attempt": 1])
                    try w.insertLog(ts: ts(t + 2), level: 3, event: "http.response",
                                    data: ["status": 200, "count": .int(Int64(batch.count)), "ms": 180, "response": "{\"ok\":true}"])
                    depth = 0
                    queued = []
                }
            } else {
                try w.insertRecord(record)
                depth += 1
                queued.append(uuid)
                try w.insertLog(ts: ts(t), level: 5, event: "queue.insert", data: ["uuid": .string(uuid), "count": .int(Int64(depth))])
            }
            if i == fixes / 3 {
                let g: JSONValue = [
                    "uuid": .string(uuid + "-g"), "timestamp": .string(ts(t)), "event": "geofence",
                    "coords": ["latitude": .double(lat), "longitude": .double(lon), "accuracy": 10.0],
                    "geofence": ["identifier": "depot <north>", "action": "ENTER"],
                ]
                if i < fixes * 3 / 4 {
                    try w.insertLog(ts: ts(t), level: 3, event: "geofence", message: "ENTER depot", data: g)
                }
            }
        }
        // The tail of the queue is stuck: server errors with backoff, then a poison batch.
        let batch = queued
        var at = t + 5
        for (n, status) in [500, 503, 0].enumerated() {
            try w.insertLog(ts: ts(at), level: 3, event: "http.request",
                            data: ["url": .string("https://api.example.invalid/locations?key=\(plantedSecrets[2])"), "method": "POST",
                                   "count": .int(Int64(batch.count)), "uuids": .array(batch.map { .string($0) }), "bytes": 12000, "attempt": .int(Int64(n + 1))])
            try w.insertLog(ts: ts(at + 1), level: 3, event: "http.response",
                            data: ["status": .int(Int64(status)), "count": .int(Int64(batch.count)), "ms": 900,
                                   "response": status == 0 ? "" : "<html><body>Bad gateway <script>alert(1)</script></body></html>"])
            let delay = 5.0 * pow(2, Double(n))
            try w.insertLog(ts: ts(at + 1), level: 3, event: "http.backoff",
                            data: ["failures": .int(Int64(n + 1)), "delay_s": .double(delay), "next_attempt_at": .string(ts(at + 1 + delay))])
            at += 1 + delay
        }
        // A geofence record still queued (exit).
        try w.insertRecord([
            "uuid": "geofence-exit-depot", "timestamp": .string(ts(at)), "event": "geofence",
            "coords": ["latitude": .double(lat), "longitude": .double(lon), "accuracy": 15.0],
            "geofence": ["identifier": "depot <north>", "action": "EXIT"],
        ])
        try w.insertLog(ts: ts(at + 1), level: 2, event: "queue.drop", message: "poison batch",
                        data: ["uuids": ["deadbeef-0000-4000-8000-000000000001"], "status": 422])
        try w.close()
    }
}
