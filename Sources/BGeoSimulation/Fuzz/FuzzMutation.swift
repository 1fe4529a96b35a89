import BGeoForensics
import Foundation
import BGeoSQLite

/// What a fuzz case does to its base dump. Row-level mutations go through SQL on the still-open
/// writer (so the file stays a valid database holding hostile rows); file-level ones change the
/// bytes of the finished files (so SQLite itself meets the damage). Each returns its recipe line.
enum FuzzMutation {
    /// Text columns of the layouts, by table.
    static let textColumns: [String: [String]] = [
        "location_events": ["uuid", "timestamp", "kind", "json", "data", "created_at"],
        "log_entries": ["ts", "src", "event", "message", "data"],
        "state": ["key", "value"],
        "queue": ["uuid", "created_at", "payload"],
    ]

    /// Record fields the readers decode.
    static let recordFields = ["coords.latitude", "coords.longitude", "coords.accuracy", "coords.speed", "coords.heading",
                               "coords.altitude", "odometer", "timestamp", "uuid", "is_moving", "event",
                               "geofence.identifier", "geofence.action", "activity.type", "battery.level", "extras", "coords"]

    /// Log data fields of the events the readers interpret.
    static let logFields: [String: [String]] = [
        "http.backoff": ["delay_s", "failures", "next_attempt_at"],
        "http.response": ["status", "count", "ms", "response", "retry_after"],
        "http.request": ["count", "uuids", "bytes", "attempt", "url"],
        "location": ["latitude", "longitude", "accuracy", "speed", "odometer", "timestamp", "uuid", "is_moving", "raw_latitude"],
        "filter.reject": ["latitude", "longitude", "accuracy", "implied_speed", "limit", "timestamp"],
        "queue.insert": ["count", "uuid"],
        "config": ["authorization", "url", "maxBatchSize", "headers", "locationFilterMaxAccuracy", "httpTimeoutMs"],
        "motionchange": ["confidence"],
    ]

    // MARK: row level

    static func rowLevel(_ writer: DumpWriter, rng: inout SplitMix64) throws -> String {
        let db = writer.database
        let tables = try existingTables(db)
        switch rng.int(0...10) {
        case 10:
            // Every number an interpreted event states replaced by one that does not fit.
            guard let (_, id) = try randomRow(db, tables: tables, among: ["log_entries"], rng: &rng) else { return "no log row" }
            let events = ["http.backoff", "http.response", "http.request", "location", "filter.reject", "queue.insert", "motionchange"]
            let event = events[rng.int(0...(events.count - 1))]
            var members: [String] = []
            for field in logFields[event] ?? [] {
                members.append("\(JSONValue.string(field).jsonText):\(FuzzValues.numberTexts[rng.int(0...(FuzzValues.numberTexts.count - 1))])")
            }
            try db.prepare("UPDATE log_entries SET event = ?, data = ? WHERE id = ?").run([.text(event), .text("{" + members.joined(separator: ",") + "}"), .integer(id)])
            return "log_entries row \(id): \(event) with out-of-range numbers"
        case 0:
            guard let (table, id) = try randomRow(db, tables: tables, among: ["location_events", "queue"], rng: &rng) else { return "no queue row to break" }
            let column = try columns(db, table).contains("json") ? "json" : (try columns(db, table).contains("payload") ? "payload" : "data")
            let text = FuzzValues.brokenJSON[rng.int(0...(FuzzValues.brokenJSON.count - 1))]
            try set(db, table, column, id, .text(text))
            return "\(table) row \(id): \(column) is broken JSON"
        case 1, 2:
            guard let (table, id) = try randomRow(db, tables: tables, among: ["location_events", "queue"], rng: &rng) else { return "no record to mutate" }
            let column = try columns(db, table).contains("json") ? "json" : (try columns(db, table).contains("payload") ? "payload" : "data")
            let field = recordFields[rng.int(0...(recordFields.count - 1))]
            let value = FuzzValues.jsonValue(&rng)
            let json = try replaceField(db, table: table, column: column, id: id, path: field, with: value)
            try set(db, table, column, id, .text(json))
            return "\(table) row \(id): \(field) = \(value.prefix(40))"
        case 3:
            guard let (_, id) = try randomRow(db, tables: tables, among: ["log_entries"], rng: &rng) else { return "no log row" }
            let event = Array(logFields.keys).sorted()[rng.int(0...(logFields.count - 1))]
            let fields = logFields[event] ?? []
            var object: JSONObject = [:]
            for field in fields where rng.chance(0.6) {
                object[field] = (try? JSONParser.parse(FuzzValues.jsonValue(&rng))) ?? .null
            }
            if event == "config" {
                object["authorization"] = ["accessToken": .string(FuzzValues.jwt(exp: FuzzValues.numberTexts[rng.int(0...(FuzzValues.numberTexts.count - 1))])),
                                           "refreshToken": .string(FuzzValues.string(&rng))]
            }
            try db.prepare("UPDATE log_entries SET event = ?, data = ? WHERE id = ?").run([.text(event), .text(JSONValue.object(object).jsonText), .integer(id)])
            return "log_entries row \(id): \(event) with hostile data"
        case 4:
            guard let table = tables.filter({ textColumns[$0] != nil }).randomElement(using: &rng) else { return "no table" }
            let present = try columns(db, table).filter { (textColumns[table] ?? []).contains($0) }
            guard let column = present.randomElement(using: &rng),
                  let id = try randomRowID(db, table, rng: &rng) else { return "no row in \(table)" }
            let text = FuzzValues.string(&rng)
            try setByRowID(db, table, column, id, .text(text))
            return "\(table) rowid \(id): \(column) = hostile string (\(text.unicodeScalars.count) chars)"
        case 5:
            guard let table = tables.filter({ textColumns[$0] != nil }).randomElement(using: &rng) else { return "no table" }
            let present = try columns(db, table).filter { (textColumns[table] ?? []).contains($0) }
            guard let column = present.randomElement(using: &rng), let id = try randomRowID(db, table, rng: &rng) else { return "no row in \(table)" }
            let hex = ["C328", "FF", "ED A0 80", "F4908080", "C0AF", "E282", "80808080", "EFBFBE"][rng.int(0...7)].replacingOccurrences(of: " ", with: "")
            try db.prepare("UPDATE \(quoteIdentifier(table)) SET \(quoteIdentifier(column)) = CAST(X'\(hex)' AS TEXT) || ? WHERE rowid = ?")
                .run([.text("tail"), .integer(id)])
            return "\(table) rowid \(id): \(column) holds invalid UTF-8 (\(hex))"
        case 6:
            guard tables.contains("state") else { return "no state table" }
            let key = ["odometer", "http.failures", "auth", "config", "schema_version", "device", "http.next_attempt_at"][rng.int(0...6)]
            let value: String
            switch key {
            case "auth":
                let exp = FuzzValues.numberTexts[rng.int(0...(FuzzValues.numberTexts.count - 1))]
                value = JSONValue.object(["accessToken": .string(FuzzValues.jwt(exp: exp)), "refreshToken": .string(FuzzValues.string(&rng))]).jsonText
            case "config":
                // The numbers re-sync and replay convert, each a value that does not fit.
                let numeric = ["httpTimeoutMs", "maxBatchSize", "autoSyncThreshold", "maxRecordsToPersist", "maxDaysToPersist",
                               "locationFilterMaxAccuracy", "locationFilterMaxSpeed", "odometerAccuracyThreshold", "logMaxDays"]
                var members = ["\"authorization\":{\"accessToken\":\(JSONValue.string(FuzzValues.jwt(exp: FuzzValues.numberTexts[rng.int(0...(FuzzValues.numberTexts.count - 1))])).jsonText)}",
                               "\"url\":\(rng.chance(0.5) ? "\"http://127.0.0.1:1/x\"" : FuzzValues.jsonValue(&rng))"]
                for key in numeric where rng.chance(0.5) {
                    members.append("\"\(key)\":\(rng.chance(0.7) ? FuzzValues.numberTexts[rng.int(0...(FuzzValues.numberTexts.count - 1))] : FuzzValues.jsonValue(&rng))")
                }
                value = "{" + members.joined(separator: ",") + "}"
            default:
                value = FuzzValues.jsonValue(&rng)
            }
            try db.prepare("INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)").run([.text(key), .text(value)])
            return "state \(key) = \(value.prefix(40))"
        case 7:
            guard let table = tables.filter({ $0 != "state" && textColumns[$0] != nil }).randomElement(using: &rng),
                  let id = try randomRowID(db, table, rng: &rng) else { return "no row" }
            let present = try columns(db, table)
            guard let column = present.filter({ $0 != "id" }).randomElement(using: &rng) else { return "no column" }
            let value: SQLValue = [.integer(Int64.max), .integer(Int64.min), .real(1e308), .real(-0.0), .null, .integer(-5)][rng.int(0...5)]
            try? setByRowID(db, table, column, id, value)  // NOT NULL may refuse the NULL
            return "\(table) rowid \(id): \(column) = \(value) (wrong SQL type)"
        case 8:
            guard let table = tables.first(where: { $0 == "location_events" || $0 == "queue" || $0 == "log_entries" }),
                  let id = try randomRowID(db, table, rng: &rng) else { return "no row" }
            let newID: Int64 = [Int64.max, Int64.max - 1, -5, 0, 1 << 53][rng.int(0...4)]
            try? db.prepare("UPDATE \(quoteIdentifier(table)) SET rowid = ? WHERE rowid = ?").run([.integer(newID), .integer(id)])
            return "\(table) rowid \(id) moved to \(newID)"
        default:
            guard tables.contains("log_entries"), let id = try randomRowID(db, "log_entries", rng: &rng) else { return "no log row" }
            let level: Int64 = [0, -1, 6, 999_999_999_999, Int64.max][rng.int(0...4)]
            try db.prepare("UPDATE log_entries SET level = ? WHERE id = ?").run([.integer(level), .integer(id)])
            return "log_entries row \(id): level \(level)"
        }
    }

    /// A structural change to the schema: a table dropped, emptied, or replaced by another shape.
    static func schemaLevel(_ writer: DumpWriter, rng: inout SplitMix64) throws -> String {
        let db = writer.database
        let tables = try existingTables(db)
        switch rng.int(0...3) {
        case 0:
            guard let table = tables.filter({ !$0.hasPrefix("sqlite_") }).randomElement(using: &rng) else { return "no table" }
            try db.execute("DROP TABLE \(quoteIdentifier(table))")
            return "table \(table) dropped"
        case 1:
            guard let table = tables.filter({ !$0.hasPrefix("sqlite_") }).randomElement(using: &rng) else { return "no table" }
            try db.execute("DELETE FROM \(quoteIdentifier(table))")
            return "table \(table) emptied"
        case 2:
            let name = "extra_\(rng.int(0...99))"
            try db.execute("CREATE TABLE IF NOT EXISTS \(name) (id INTEGER PRIMARY KEY, blob BLOB); INSERT INTO \(name)(blob) VALUES (randomblob(100))")
            return "an unknown table added"
        default:
            guard tables.contains("location_events") else { return "no location_events" }
            try db.execute("ALTER TABLE location_events RENAME TO le_old; CREATE TABLE location_events (id INTEGER PRIMARY KEY, uuid TEXT, other TEXT); INSERT INTO location_events SELECT id, uuid, 'x' FROM le_old; DROP TABLE le_old")
            return "location_events without its record column"
        }
    }

    // MARK: file level

    /// Damages the closed files at `path` (and `path-wal`); `foreignWAL` is another dump's WAL.
    static func fileLevel(path: String, foreignWAL: [UInt8]?, rng: inout SplitMix64) throws -> String {
        let walPath = path + "-wal"
        let hasWAL = FileManager.default.fileExists(atPath: walPath)
        let target = hasWAL && rng.chance(0.3) ? walPath : path
        var bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: target))) ?? Data())
        let name = (target as NSString).lastPathComponent
        var recipe: String
        switch rng.int(0...5) {
        case 0 where foreignWAL != nil:
            try Data(foreignWAL!).write(to: URL(fileURLWithPath: walPath))
            return "a foreign WAL beside it"
        case 0, 1:
            let cut = bytes.isEmpty ? 0 : [rng.int(0...(bytes.count - 1)), (bytes.count / 4096) / 2 * 4096, rng.int(0...min(99, bytes.count)),
                                           max(0, bytes.count - rng.int(1...200))][rng.int(0...3)]
            bytes = Array(bytes.prefix(cut))
            recipe = "\(name) truncated to \(cut) bytes"
        case 2:
            guard !bytes.isEmpty else { return "\(name) empty, nothing to flip" }
            let count = rng.int(1...24)
            let inHeader = rng.chance(0.2)
            for _ in 0..<count {
                let at = inHeader ? rng.int(0...min(99, bytes.count - 1)) : rng.int(0...(bytes.count - 1))
                bytes[at] ^= UInt8(truncatingIfNeeded: rng.int(1...255))
            }
            recipe = "\(name): \(count) bytes flipped" + (inHeader ? " in the header" : "")
        case 3:
            let pages = max(1, bytes.count / 4096)
            let page = rng.int(0...(pages - 1))
            for i in (page * 4096)..<min(bytes.count, page * 4096 + 4096) { bytes[i] = 0 }
            recipe = "\(name): page \(page + 1) zeroed"
        case 4:
            bytes += rng.bytes(rng.int(1...5000))
            recipe = "\(name): garbage appended"
        default:
            guard bytes.count > 8192 else { return "\(name) too small to shuffle" }
            let a = rng.int(1...(bytes.count / 4096 - 1)), b = rng.int(1...(bytes.count / 4096 - 1))
            for i in 0..<4096 { bytes.swapAt(a * 4096 + i, b * 4096 + i) }
            recipe = "\(name): pages \(a + 1) and \(b + 1) swapped"
        }
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return recipe
    }

    // MARK: helpers

    static func existingTables(_ db: Database) throws -> [String] {
        let stmt = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try stmt.step() { names.append(stmt.text(0) ?? "") }
        return names
    }

    static func columns(_ db: Database, _ table: String) throws -> [String] {
        let stmt = try db.prepare("PRAGMA table_info(\(quoteIdentifier(table)))")
        var names: [String] = []
        while try stmt.step() { names.append(stmt.text(1) ?? "") }
        return names
    }

    static func randomRowID(_ db: Database, _ table: String, rng: inout SplitMix64) throws -> Int64? {
        let stmt = try db.prepare("SELECT rowid FROM \(quoteIdentifier(table)) ORDER BY rowid")
        var ids: [Int64] = []
        while try stmt.step() { ids.append(stmt.int64(0)) }
        return ids.isEmpty ? nil : ids[rng.int(0...(ids.count - 1))]
    }

    static func randomRow(_ db: Database, tables: [String], among: [String], rng: inout SplitMix64) throws -> (String, Int64)? {
        guard let table = among.first(where: tables.contains), let id = try randomRowID(db, table, rng: &rng) else { return nil }
        return (table, id)
    }

    static func set(_ db: Database, _ table: String, _ column: String, _ id: Int64, _ value: SQLValue) throws {
        try db.prepare("UPDATE \(quoteIdentifier(table)) SET \(quoteIdentifier(column)) = ? WHERE id = ?").run([value, .integer(id)])
    }

    static func setByRowID(_ db: Database, _ table: String, _ column: String, _ id: Int64, _ value: SQLValue) throws {
        try db.prepare("UPDATE \(quoteIdentifier(table)) SET \(quoteIdentifier(column)) = ? WHERE rowid = ?").run([value, .integer(id)])
    }

    /// The record's JSON with the dotted `path` replaced by raw JSON text `value`.
    static func replaceField(_ db: Database, table: String, column: String, id: Int64, path: String, with value: String) throws -> String {
        let stmt = try db.prepare("SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table)) WHERE id = ?")
        try stmt.bind([.integer(id)])
        guard try stmt.step(), let text = stmt.text(0), case .object(var object)? = try? JSONParser.parse(text) else { return "{}" }
        // Set through a placeholder string, then splice the raw text in (the value may not even parse).
        let marker = "@@FUZZ@@"
        let parts = path.split(separator: ".").map(String.init)
        if parts.count == 1 {
            object[parts[0]] = .string(marker)
        } else if case .object(var inner)? = object[parts[0]] {
            inner[parts[1]] = .string(marker)
            object[parts[0]] = .object(inner)
        } else {
            object[parts[0]] = .object([parts[1]: .string(marker)])
        }
        return JSONValue.object(object).jsonText.replacingOccurrences(of: "\"\(marker)\"", with: value)
    }
}

extension Array {
    func randomElement(using rng: inout SplitMix64) -> Element? {
        isEmpty ? nil : self[rng.int(0...(count - 1))]
    }
}
