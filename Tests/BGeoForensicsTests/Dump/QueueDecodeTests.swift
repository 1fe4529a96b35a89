import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The queue decoder that builds no String it does not keep (`DecodedQueueRow`), and the split
/// summary scan, against the reference: the decoder as it was (every field materialised as a
/// `ScannedValue`, kept below verbatim) on random and hostile rows — same records, same located
/// warnings, same summary.
@Suite struct QueueDecodeTests {
    /// One stored row: every column may be NULL, empty or hostile.
    struct Row {
        var uuid: String?
        var timestamp: String?
        var kind: String?
        var json: String?
    }

    /// A table like the current schema but without NOT NULL, so that any cell can be NULL.
    static func write(_ rows: [Row], to path: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { _ = unlink(path + suffix) }
        let db = try Database(path: path, mode: .readWriteCreate)
        try db.execute("""
            CREATE TABLE location_events (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT, timestamp TEXT, kind TEXT,
              json TEXT, created_at TEXT);
            CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT);
            INSERT INTO state(key, value) VALUES ('schema_version', '3');
            BEGIN;
            """)
        let insert = try db.prepare("INSERT INTO location_events(uuid, timestamp, kind, json, created_at) VALUES (?, ?, ?, ?, 'c')")
        func value(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
        for row in rows { try insert.run([value(row.uuid), value(row.timestamp), value(row.kind), value(row.json)]) }
        try db.execute("COMMIT")
    }

    static func randomRow(_ rng: inout SplitMix64, _ i: Int) -> Row {
        func pick<T>(_ choices: [T]) -> T { choices[rng.int(0...(choices.count - 1))] }
        let uuid = "3f9c9e2a-8b41-4b8a-9e0a-\(String(format: "%012d", i))"
        let stamp = Timestamp.format(1_784_880_000 + Double(rng.int(0...100_000)), milliseconds: true)
        let strings = ["\"\(uuid)\"", "\"\"", "\"a\\u00e9b\"", "\"\\ud800\"", "\"x\\\"y\"", "12", "null", "{\"a\":1}", "\"é✓\""]
        let stamps = ["\"\(stamp)\"", "\"\(stamp)\"", "\"2026-13-01T00:00:00Z\"", "\"2026-07-24T07:00:00\\u002e000Z\"", "\"\"", "7",
                      "\"2026-07-24T07:00:00.000+02:00\"", "\"2026-07-24T07:00:00.000Z\u{FFFD}\""]
        let numbers = ["52.25", "-91", "90", "1e2", "-0.0", "\"52\"", "null", "true", "123456789012345678", "2.5E-3", "[1]"]
        var members: [String] = []
        if rng.int(0...9) > 0 { members.append("\"uuid\":" + pick(strings)) }
        if rng.int(0...9) > 0 { members.append("\"timestamp\":" + pick(stamps)) }
        if rng.int(0...9) > 0 {
            var coords: [String] = []
            for key in ["latitude", "longitude", "accuracy", "speed", "heading", "altitude"] where rng.int(0...7) > 0 {
                coords.append("\"\(key)\":" + (rng.int(0...2) == 0 ? pick(numbers) : "\(Double(rng.int(-1800...1800)) / 20)"))
            }
            members.append("\"coords\":" + (rng.int(0...12) == 0 ? pick(["5", "null", "\"c\""]) : "{" + coords.joined(separator: ",") + "}"))
        }
        if rng.int(0...3) == 0 {
            members.append("\"geofence\":" + pick(["{\"identifier\":\(pick(strings)),\"action\":\(pick(strings))}", "null", "{}"]))
        }
        for key in ["event", "odometer", "is_moving", "activity", "battery", "extras"] where rng.int(0...2) > 0 {
            switch key {
            case "activity": members.append("\"activity\":{\"type\":\(pick(strings)),\"confidence\":\(pick(numbers))}")
            case "battery": members.append("\"battery\":{\"level\":\(pick(numbers))}")
            case "is_moving": members.append("\"is_moving\":" + pick(["true", "false", "null", "1"]))
            case "extras": members.append("\"extras\":{\"note\":\(pick(strings)),\"n\":[1,{\"k\":\(pick(strings))}]}")
            default: members.append("\"\(key)\":" + (key == "event" ? pick(strings) : pick(numbers)))
            }
        }
        for i in stride(from: members.count - 1, to: 0, by: -1) { members.swapAt(i, rng.int(0...i)) }
        var json = "{" + members.joined(separator: rng.int(0...5) == 0 ? " , " : ",") + "}"
        if rng.int(0...15) == 0 {
            // Damage: drop, duplicate or replace one byte.
            var bytes = Array(json.utf8)
            let at = rng.int(0...(bytes.count - 1))
            switch rng.int(0...2) {
            case 0: bytes.remove(at: at)
            case 1: bytes.insert(bytes[at], at: at)
            default: bytes[at] = pick([0x01, 0x22, 0x5C, 0x7D, 0x2C, 0x20, 0xFF])
            }
            json = String(decoding: bytes, as: UTF8.self)
        }
        return Row(uuid: pick([uuid, uuid, uuid, "", nil]), timestamp: pick([stamp, stamp, stamp, "yesterday", "", nil]),
                   kind: pick(["location", "location", "geofence", "Location", "", "locatio\u{FFFD}", nil]),
                   json: rng.int(0...40) == 0 ? nil : json)
    }

    static func randomRows(seed: UInt64, count: Int) -> [Row] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { randomRow(&rng, $0) }
    }

    @Test func recordsAndWarningsMatchTheReferenceDecoder() throws {
        let dir = TestDirectory("queue-decode")
        let path = dir.file("bgeo.db")
        let rows = Self.randomRows(seed: 20261201, count: 3000)
        try Self.write(rows, to: path)
        let dump = try Dump(path: path)
        let reference = try Dump(path: path)
        var records: [QueueRecord] = []
        dump.forEachRecord { records.append($0) }
        let expected = ReferenceDecoder.records(reference, includeText: true)
        #expect(records.count == expected.count)
        #expect(records.count > 300)
        for (record, want) in zip(records, expected) { #expect(Self.same(record, want), "row \(record.rowId)") }
        #expect(dump.warnings.all == reference.warnings.all)
        #expect(dump.warnings.all.count > 500)
        // fieldsOnly, and the filters, on the same rows.
        var fieldsOnly: [QueueRecord] = []
        dump.forEachRecord(.fieldsOnly) { fieldsOnly.append($0) }
        let expectedFieldsOnly = ReferenceDecoder.records(reference, includeText: false)
        #expect(fieldsOnly.count == expectedFieldsOnly.count)
        for (record, want) in zip(fieldsOnly, expectedFieldsOnly) { #expect(Self.same(record, want), "row \(record.rowId)") }
        var geofences = 0
        dump.forEachRecord(QueueQuery(kind: .geofence)) { _ in geofences += 1 }
        // SQLite filters on the kind column; a row must also decode as a geofence.
        #expect(geofences == expected.filter { $0.kind == .geofence && rows[Int($0.rowId) - 1].kind == "geofence" }.count)
    }

    @Test(arguments: [false, true])
    func summaryMatchesTheReferenceScan(split: Bool) throws {
        let dir = TestDirectory("queue-summary")
        let path = dir.file("bgeo.db")
        try Self.write(Self.randomRows(seed: split ? 7 : 8, count: 2500), to: path)
        let dump = try Dump(path: path)
        let reference = try Dump(path: path)
        let tally = QueueTally.read(dump, rowCount: 2500, minimumSplitRows: split ? 10 : 1_000_000)
        // The reference: the summary as it was, over decoded records.
        var count = 0, geofences = 0
        var oldest: (Double, String)?, newest: (Double, String)?, head: String?
        for record in ReferenceDecoder.records(reference, includeText: false) {
            count += 1
            if record.kind == .geofence { geofences += 1 }
            if oldest.map({ record.time < $0.0 }) ?? true { oldest = (record.time, record.timestampText) }
            if newest.map({ record.time > $0.0 }) ?? true { newest = (record.time, record.timestampText) }
            if head == nil { head = record.uuid }
        }
        #expect(tally.count == count)
        #expect(tally.geofences == geofences)
        #expect(tally.locations == count - geofences)
        #expect(tally.rowsRead == 2500)
        #expect(tally.passes == (split ? 2 : 1))
        #expect(tally.oldestTime == oldest?.0)
        #expect(String(decoding: tally.oldest, as: UTF8.self) == oldest?.1)
        #expect(tally.newestTime == newest?.0)
        #expect(String(decoding: tally.newest, as: UTF8.self) == newest?.1)
        #expect(tally.head == head)
        #expect(dump.warnings.all == reference.warnings.all)
    }

    /// A damaged page under a split scan: the split is abandoned and the queue read in one pass,
    /// so the summary and its warnings are a single pass's.
    @Test func splitScanFallsBackOnDamage() throws {
        let dir = TestDirectory("queue-split-damage")
        let path = dir.file("bgeo.db")
        try Self.write(Self.randomRows(seed: 99, count: 4000), to: path)
        // Garble a page in the middle of the table's leaves.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: (size / 4096 / 2) * 4096 + 8)
        handle.write(Data(repeating: 0xA5, count: 600))
        try handle.close()
        let dump = try Dump(path: path)
        let reference = try Dump(path: path)
        let tally = QueueTally.read(dump, rowCount: 4000, minimumSplitRows: 10)
        let single = QueueTally(reference, rows: nil)
        #expect(tally.passes == 1)
        #expect(tally.count == single.count)
        #expect(tally.rowsRead == single.rowsRead)
        #expect(tally.oldest == single.oldest && tally.newest == single.newest && tally.head == single.head)
        #expect(dump.warnings.all == reference.warnings.all)
        #expect(dump.warnings.all.contains { $0.message.contains("reading stopped") || $0.message.contains("out of order") })
    }

    static func same(_ a: QueueRecord, _ b: QueueRecord) -> Bool {
        func eq(_ x: Double?, _ y: Double?) -> Bool { x == y || (x?.isNaN == true && y?.isNaN == true) }
        return a.rowId == b.rowId && a.uuid == b.uuid && a.timestampText == b.timestampText && a.time == b.time
            && a.kind == b.kind && a.createdAt == b.createdAt && a.json == b.json && a.latitude == b.latitude
            && a.longitude == b.longitude && eq(a.accuracy, b.accuracy) && eq(a.speed, b.speed) && eq(a.heading, b.heading)
            && eq(a.altitude, b.altitude) && eq(a.odometer, b.odometer) && a.isMoving == b.isMoving && a.event == b.event
            && a.geofence == b.geofence && a.activityType == b.activityType && eq(a.batteryLevel, b.batteryLevel)
            && a.attempts == b.attempts
    }
}

/// The queue decoder as it was before `DecodedQueueRow` (main@f4f050d), verbatim but for its
/// name: every picked field materialised as a `ScannedValue`.
enum ReferenceDecoder {
    static func records(_ dump: Dump, includeText: Bool) -> [QueueRecord] {
        guard let table = dump.layout.queueTable else { return [] }
        let col = quoteIdentifier(dump.layout.recordColumn)
        func column(_ name: String) -> String { dump.layout.queueColumns.contains(name) ? name : "NULL" }
        let scan = RowScan(
            columns: "id, \(column("uuid")), \(column("timestamp")), \(column("kind")), \(column("created_at")), \(col), \(column("attempts"))",
            table: table)
        var values: [ScannedValue] = []
        var out: [QueueRecord] = []
        dump.scanRows(scan) { stmt, rowId in
            if let record = decode(dump, stmt, rowId: rowId, table: table, values: &values, includeText: includeText) {
                out.append(record)
            }
            return true
        }
        return out
    }

    private static func decode(_ dump: Dump, _ stmt: Statement, rowId: Int64, table: String,
                               values: inout [ScannedValue], includeText: Bool) -> QueueRecord? {
        let scanner = Dump.recordScanner
        let warnings = dump.warnings
        func warn(_ message: String) -> QueueRecord? {
            warnings.add(table: table, rowId: rowId, message)
            return nil
        }
        let valid = stmt.withUTF8(5) { bytes in bytes.map { scanner.scan($0, into: &values) } }
        guard let valid else { return warn("the record column is NULL") }
        guard valid else {
            var reason = "not a JSON object"
            if let text = stmt.text(5) {
                do throws(JSONParser.ParseError) { _ = try JSONParser.parse(text) } catch { reason = error.description }
            }
            return warn("record JSON does not parse (\(reason))")
        }
        guard let uuid = stmt.text(1) ?? values[13].string, !uuid.isEmpty else { return warn("record has no uuid") }
        let tsText: String
        let time: Double
        if !stmt.isNull(2) {
            guard let t = stmt.withUTF8(2, { $0.flatMap(Timestamp.parse(bytes:)) }) else {
                return warn("timestamp '\(stmt.text(2) ?? "")' is not an ISO-8601 time")
            }
            tsText = stmt.text(2) ?? ""
            time = t
        } else {
            guard let text = values[14].string else { return warn("record has no timestamp") }
            guard let t = Timestamp.parse(text) else { return warn("timestamp '\(text)' is not an ISO-8601 time") }
            tsText = text
            time = t
        }
        var kind: RecordKind = values[16] == .composite ? .geofence : .location
        if let kindText = stmt.text(3) {
            if let known = RecordKind(rawValue: kindText) { kind = known } else {
                warnings.add(table: table, rowId: rowId, "unknown kind '\(kindText)', read as a location")
            }
        }
        guard values[15] == .composite else {
            return warn(values[15].isMissing ? "record has no coords" : "coords is not an object")
        }
        guard let latitude = values[0].double else {
            return warn(values[0].isMissing ? "coords.latitude is missing" : "coords.latitude is not a number")
        }
        guard let longitude = values[1].double else {
            return warn(values[1].isMissing ? "coords.longitude is missing" : "coords.longitude is not a number")
        }
        guard (-90.0...90.0).contains(latitude) else { return warn("coords.latitude \(latitude) is out of range (−90…90)") }
        guard (-180.0...180.0).contains(longitude) else { return warn("coords.longitude \(longitude) is out of range (−180…180)") }
        func known(_ index: Int) -> Double? {
            guard let value = values[index].double, value >= 0 else { return nil }
            return value
        }
        var geofence: GeofenceInfo?
        if let identifier = values[9].string {
            geofence = GeofenceInfo(identifier: identifier, action: values[10].string ?? "")
        }
        return QueueRecord(
            rowId: rowId, uuid: uuid, timestampText: tsText, time: time, kind: kind,
            createdAt: includeText ? stmt.text(4) : nil, json: includeText ? stmt.text(5) ?? "" : "", latitude: latitude, longitude: longitude,
            accuracy: known(2), speed: known(3), heading: known(4), altitude: values[5].double, odometer: values[6].double,
            isMoving: values[7].bool, event: values[8].string, geofence: geofence, activityType: values[11].string,
            batteryLevel: values[12].double, attempts: stmt.isNull(6) ? nil : stmt.int(6))
    }
}
