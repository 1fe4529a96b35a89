import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// A dump built to stress trace building: queue rows and log lines of the same fixes at the same,
/// nearby and far-apart times; repeated uuids in the queue (no UNIQUE constraint: a hand-made
/// dump) and in the log; stretches hours out of order in both tables; fixes sharing one exact
/// time across sources; filter.reject, filter.adjust (matched, doubled, unmatched) and uuid-less
/// location lines; fields missing at random. Deterministic per seed.
enum RandomTraceDump {
    struct Shape {
        var fixes = 900
        var geofences = 12
        /// Every fix at one millisecond (a clock stuck on one value); lines may still be apart.
        var stuckClock = false
    }

    static func write(to path: String, seed: UInt64, shape: Shape = Shape()) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        let db = try Database(path: path, mode: .readWriteCreate)
        try db.execute("""
            CREATE TABLE location_events (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL, timestamp TEXT NOT NULL,
              kind TEXT NOT NULL DEFAULT 'location', json TEXT NOT NULL, created_at TEXT NOT NULL);
            CREATE TABLE log_entries (id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, level INTEGER NOT NULL,
              src TEXT NOT NULL, event TEXT NOT NULL, message TEXT, data TEXT, uploaded INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT);
            INSERT INTO state(key, value) VALUES ('schema_version', '3');
            INSERT INTO state(key, value) VALUES ('config', '{"locationFilterPolicy":"Adjust","locationFilterMaxSpeed":30,"odometerAccuracyThreshold":20}');
            BEGIN;
            """)
        var random = SplitMix64(seed: seed)
        let base = 1_784_880_000.0
        var queueRows: [(order: Double, uuid: String, time: Double, json: String, kind: String)] = []
        var logRows: [(order: Double, time: Double, event: String, data: String)] = []
        var times: [Double] = []
        func number(_ v: Double) -> String { DecimalText.format(v, places: 7) }
        func uuid() -> String {
            let v = random.next()
            return String(format: "%08x-%04x-4%03x-a%03x-%012llx", UInt32(truncatingIfNeeded: v), UInt16(truncatingIfNeeded: v >> 32) ,
                          UInt16(truncatingIfNeeded: v >> 48) & 0xfff, UInt16(truncatingIfNeeded: random.next()) & 0xfff,
                          random.next() & 0xffff_ffff_ffff)
        }
        var clock = base
        for i in 0..<shape.fixes {
            clock += random.double(0.2...4)
            var t = (clock * 1000).rounded() / 1000
            if random.chance(0.06), let earlier = times.last { t = earlier }  // the very same time as the fix before
            if random.chance(0.03), times.count > 10 { t = times[random.int(0...(times.count - 1))] }  // a tie far back
            // A stretch hours before its neighbours: a clock that was wrong, then corrected.
            if (i / 40) % 9 == 4 { t -= 3 * 3600 + Double(i % 40) }
            if shape.stuckClock { t = base }
            times.append(t)
            let id = uuid()
            let lat = 52.2 + random.double(-0.05...0.05), lon = 21.0 + random.double(-0.05...0.05)
            let accuracy = random.chance(0.1) ? nil : random.double(3...(random.chance(0.1) ? 300 : 40))
            var coords = "\"latitude\":\(number(lat)),\"longitude\":\(number(lon))"
            if let accuracy { coords += ",\"accuracy\":\(number(accuracy))" }
            if random.chance(0.8) { coords += ",\"speed\":\(number(random.double(0...30)))" }
            if random.chance(0.7) { coords += ",\"heading\":\(number(random.double(-1...359)))" }
            if random.chance(0.7) { coords += ",\"altitude\":\(number(random.double(80...120)))" }
            let moving = random.chance(0.1) ? "null" : (random.chance(0.8) ? "true" : "false")
            let ts = Timestamp.format(t)
            let odometer = random.chance(0.85) ? ",\"odometer\":\(number(Double(i) * 12.5))" : ""
            let record = "{\"uuid\":\"\(id)\",\"timestamp\":\"\(ts)\"\(odometer),\"coords\":{\(coords)},\"is_moving\":\(moving)}"
            let place = random.unit()
            let inQueue = place < 0.65, inLog = place > 0.3
            // Queue rows are in insertion order (≈ time, with its own disorder); so are log rows.
            if inQueue {
                queueRows.append((Double(i) + random.double(0...3), id, t, record, "location"))
                if random.chance(0.03) {  // a repeated queue row: same time, or not
                    let t2 = random.chance(0.5) ? t : t + random.double(1...5000)
                    queueRows.append((Double(i) + random.double(0...400), id, t2,
                                      record.replacingOccurrences(of: ts, with: Timestamp.format(t2)), "location"))
                }
            }
            if inLog {
                var copies = 1
                if random.chance(0.06) { copies = 2 }
                for copy in 0..<copies {
                    var lineTime = t
                    let roll = random.unit()
                    if roll < 0.08 { lineTime = t + random.double(0.0003...0.9) }  // nearby: conflicting or not
                    else if roll < 0.12 { lineTime = t + random.double(-20_000...20_000) }  // far apart
                    lineTime = (lineTime * 1000).rounded() / 1000
                    var data = "{\"uuid\":\"\(id)\",\"timestamp\":\"\(Timestamp.format(lineTime))\",\"latitude\":\(number(lat + 0.0001)),\"longitude\":\(number(lon - 0.0001))"
                    if let accuracy, random.chance(0.9) { data += ",\"accuracy\":\(number(accuracy))" }
                    if random.chance(0.5) { data += ",\"speed\":\(number(random.double(0...30)))" }
                    if random.chance(0.5) { data += ",\"heading\":\(number(random.double(0...359)))" }
                    if random.chance(0.5) { data += ",\"altitude\":\(number(random.double(80...120)))" }
                    if random.chance(0.5) { data += ",\"odometer\":\(number(Double(i) * 12.4))" }
                    if random.chance(0.6) { data += ",\"is_moving\":\(random.chance(0.5))" }
                    if random.chance(0.75) { data += ",\"raw_latitude\":\(number(lat + 0.0002)),\"raw_longitude\":\(number(lon + 0.0002))" }
                    data += "}"
                    logRows.append((Double(i) + random.double(0...2) + Double(copy) * random.double(0...600), lineTime, "location", data))
                }
            }
            if random.chance(0.05) {  // a filter.adjust line at this fix's millisecond (sometimes twice)
                for _ in 0..<(random.chance(0.2) ? 2 : 1) {
                    let data = "{\"timestamp\":\"\(ts)\",\"latitude\":\(number(lat + 0.01)),\"longitude\":\(number(lon + 0.01)),\"adjusted_latitude\":\(number(lat)),\"adjusted_longitude\":\(number(lon)),\"implied_speed\":80,\"limit\":30}"
                    logRows.append((Double(i) + random.double(0...2), t, "filter.adjust", data))
                }
            }
            if random.chance(0.04) {  // an adjust line no accepted fix matches
                let at = (t + random.double(0.002...0.5) * 1000).rounded() / 1000
                logRows.append((Double(i) + 1, at, "filter.adjust",
                                "{\"timestamp\":\"\(Timestamp.format(at))\",\"latitude\":\(number(lat)),\"longitude\":\(number(lon)),\"adjusted_latitude\":\(number(lat)),\"adjusted_longitude\":\(number(lon))}"))
            }
            if random.chance(0.05) {  // a rejection, at this fix's time or just after
                let at = random.chance(0.5) ? t : ((t + random.double(0...2)) * 1000).rounded() / 1000
                let reason = random.chance(0.5) ? "accuracy" : "teleport"
                logRows.append((Double(i) + random.double(0...2), at, "filter.reject",
                                "{\"reason\":\"\(reason)\",\"timestamp\":\"\(Timestamp.format(at))\",\"latitude\":\(number(lat + 0.3)),\"longitude\":\(number(lon)),\"accuracy\":\(number(random.double(3...400)))}"))
            }
            if random.chance(0.02) {  // a location line without uuid
                logRows.append((Double(i) + random.double(0...2), t, "location",
                                "{\"timestamp\":\"\(ts)\",\"latitude\":\(number(lat)),\"longitude\":\(number(lon)),\"accuracy\":7}"))
            }
        }
        for g in 0..<shape.geofences {
            let t = times[random.int(0...(times.count - 1))]
            let ts = Timestamp.format(t)
            let record = "{\"uuid\":\"geo-\(g)\",\"timestamp\":\"\(ts)\",\"coords\":{\"latitude\":52.2,\"longitude\":21.0},\"event\":\"geofence\",\"geofence\":{\"identifier\":\"depot \(g % 3)\",\"action\":\"\(g % 2 == 0 ? "ENTER" : "EXIT")\"}}"
            queueRows.append((random.double(0...Double(shape.fixes)), "geo-\(g)", t, record, "geofence"))
        }
        let insertRecord = try db.prepare("INSERT INTO location_events(uuid, timestamp, kind, json, created_at) VALUES (?, ?, ?, ?, ?)")
        for row in queueRows.sorted(by: { $0.order < $1.order }) {
            let ts = Timestamp.format(row.time)
            try insertRecord.run([.text(row.uuid), .text(ts), .text(row.kind), .text(row.json), .text(ts)])
        }
        let insertLog = try db.prepare("INSERT INTO log_entries(ts, level, src, event, message, data, uploaded) VALUES (?, 4, 'native', ?, NULL, ?, 0)")
        for row in logRows.sorted(by: { $0.order < $1.order }) {
            try insertLog.run([.text(Timestamp.format(row.time)), .text(row.event), .text(row.data)])
        }
        try db.execute("COMMIT")
    }
}
