import BGeoSQLite
extension Dump {
    /// The queue table name as warnings name it.
    public var queueTableName: String { layout.queueTable ?? (layout.format == .longping ? "queue" : "location_events") }

    /// Streams queue records oldest first (drain order, by row id), decoded. SQLite hands over the
    /// raw JSON text and `FieldScanner` validates it and picks the fields in one pass.
    /// A row that cannot be decoded becomes a located warning and is skipped; the scan goes on.
    public func forEachRecord(_ query: QueueQuery = QueueQuery(), _ body: (QueueRecord) throws -> Void) rethrows {
        guard let table = layout.queueTable else { return }
        let col = quoteIdentifier(layout.recordColumn)
        var scan = queueScan(table)
        if let uuid = query.uuid {
            scan.conditions.append(layout.queueColumns.contains("uuid") ? "uuid = ?" : "instr(\(col), ?) > 0")
            scan.bindings.append(.text(uuid))
        }
        if let kind = query.kind, layout.hasKindColumn {
            scan.conditions.append("kind = ?")
            scan.bindings.append(.text(kind.rawValue))
        }
        var emitted = 0
        try scanDecodedRows(scan, table: table) { row in
            if let kind = query.kind, row.kind != kind { return true }
            if let since = query.since, row.time < since { return true }
            if let until = query.until, row.time > until { return true }
            let record = row.record(includeText: query.includeText)
            if let uuid = query.uuid, record.uuid != uuid { return true }
            try body(record)
            emitted += 1
            return query.limit.map { emitted < $0 } ?? true
        }
    }

    /// Streams every queue record as `forEachRecord(.fieldsOnly)` does — the same rows, the same
    /// located warnings for the same rows — but hands over a view that builds no String unless
    /// asked (`DecodedQueueRow.uuid`, `timestampText`): what a summary that only counts needs.
    /// `rows` limits the scan to row ids in that range. Returns how many rows were read,
    /// decodable or not.
    @discardableResult
    /// `everyRow` sees each row read (its statement, with `uuid` and `timestamp` in columns 1 and
    /// 2, and its id) before it is decoded, whether or not it decodes.
    func forEachDecodedRecord(rows: Range<Int64>? = nil, everyRow: ((Statement, Int64) -> Void)? = nil,
                              _ body: (DecodedQueueRow) throws -> Void) rethrows -> Int {
        guard let table = layout.queueTable else { return 0 }
        var scan = queueScan(table)
        if let rows {
            scan.conditions = ["id >= ?", "id < ?"]
            scan.bindings = [.integer(rows.lowerBound), .integer(rows.upperBound)]
        }
        var read = 0
        try scanDecodedRows(scan, table: table, scanner: Dump.recordScanner, everyRow: everyRow) { row in
            read += 1
            guard let row else { return true }
            // After a damaged page the conditions no longer apply (see RowScan.conditions).
            if let rows, !rows.contains(row.rowId) { return true }
            try body(row)
            return true
        }
        return read
    }

    /// The queue's row ids split in two halves (`first`: ids before `middle`), for reading the
    /// queue on two connections; nil when the table is small or its bounds cannot be read.
    func queueHalves(minimumRows: Int64) -> (first: Range<Int64>, second: Range<Int64>)? {
        layout.queueTable.flatMap { rowHalves(of: $0, minimumRows: minimumRows) }
    }

    /// The row ids of `table` (one of the dump's own, keyed by `id`) split in two halves, for a
    /// read on two connections; nil when the id span is under `minimumRows` or cannot be read.
    func rowHalves(of table: String, minimumRows: Int64) -> (first: Range<Int64>, second: Range<Int64>)? {
        // Two subqueries: each is one b-tree seek (min and max together would scan the table).
        guard let stmt = try? database.prepare("SELECT (SELECT min(id) FROM \(quoteIdentifier(table))), (SELECT max(id) FROM \(quoteIdentifier(table)))"),
              (try? stmt.step()) == true, !stmt.isNull(0), !stmt.isNull(1) else { return nil }
        let low = stmt.int64(0), high = stmt.int64(1)
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span >= minimumRows, high < Int64.max else { return nil }
        let middle = low + span / 2
        return (low..<middle, middle..<(high + 1))
    }

    /// The queue's full row scan (the columns `DecodedQueueRow` reads, by index).
    private func queueScan(_ table: String) -> RowScan {
        let col = quoteIdentifier(layout.recordColumn)
        func column(_ name: String) -> String { layout.queueColumns.contains(name) ? name : "NULL" }
        return RowScan(
            columns: "id, \(column("uuid")), \(column("timestamp")), \(column("kind")), \(column("created_at")), \(col), \(column("attempts"))",
            table: table)
    }

    static let recordScanner = FieldScanner(paths: [
        "coords.latitude", "coords.longitude", "coords.accuracy", "coords.speed", "coords.heading", "coords.altitude",
        "odometer", "is_moving", "event", "geofence.identifier", "geofence.action", "activity.type", "battery.level",
        "uuid", "timestamp", "coords", "geofence",
    ])

    /// Scans rows of `scan` (columns as `queueScan` selects them), decodes and validates each; a
    /// row that cannot be decoded becomes a located warning and is skipped. `row` returns false to stop.
    private func scanDecodedRows(_ scan: RowScan, table: String, _ row: (DecodedQueueRow) throws -> Bool) rethrows {
        try scanDecodedRows(scan, table: table, scanner: Dump.recordScanner) { decoded in
            guard let decoded else { return true }
            return try row(decoded)
        }
    }

    /// The same, with `scanner` in `recordScanner`'s slots; `row` also sees every row
    /// that did not decode (as nil, after its warning).
    private func scanDecodedRows(_ scan: RowScan, table: String, scanner: FieldScanner,
                                 everyRow: ((Statement, Int64) -> Void)? = nil,
                                 _ row: (DecodedQueueRow?) throws -> Bool) rethrows {
        var fields: [FieldScanner.Field] = []
        try scanRows(scan) { stmt, rowId in
            everyRow?(stmt, rowId)
            guard let decoded = decodeRecord(stmt, rowId: rowId, table: table, scanner: scanner, fields: &fields) else {
                return try row(nil)
            }
            return try fields.withUnsafeBufferPointer { fields in
                try row(DecodedQueueRow(stmt: stmt, fields: fields, rowId: rowId, decoded: decoded))
            }
        }
    }

    /// Validates one row and decodes what every reader checks (no String is built unless a
    /// warning quotes one); nil, with a located warning, when the row cannot be used.
    private func decodeRecord(_ stmt: Statement, rowId: Int64, table: String, scanner: FieldScanner,
                              fields values: inout [FieldScanner.Field]) -> DecodedQueueRow.Decoded? {
        func warn(_ message: String) -> DecodedQueueRow.Decoded? {
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
        // The uuid column when it is there (even empty), else the record's own.
        let uuidInColumn: Bool
        if let length = stmt.withUTF8(1, { $0.map(\.count) }) {
            guard length > 0 else { return warn("record has no uuid") }
            uuidInColumn = true
        } else {
            let slot = values[DecodedQueueRow.Slot.uuid]
            guard slot.isString, slot.end > slot.start || slot.kind == .escapedString else { return warn("record has no uuid") }
            uuidInColumn = false
        }
        let time: Double
        let timestampInColumn = !stmt.isNull(2)
        if timestampInColumn {
            guard let t = stmt.withUTF8(2, { $0.flatMap(Timestamp.parse(bytes:)) }) else {
                return warn("timestamp '\(stmt.text(2) ?? "")' is not an ISO-8601 time")
            }
            time = t
        } else {
            let slot = values[DecodedQueueRow.Slot.timestamp]
            guard slot.isString else { return warn("record has no timestamp") }
            let parsed = stmt.withUTF8(5) { json in slot.withStringBytes(in: json!) { $0.flatMap(Timestamp.parse(bytes:)) } }
            guard let t = parsed else {
                let text = stmt.withUTF8(5) { slot.string(in: $0!) } ?? ""
                return warn("timestamp '\(text)' is not an ISO-8601 time")
            }
            time = t
        }
        var kind: RecordKind = values[DecodedQueueRow.Slot.geofenceObject].isComposite ? .geofence : .location
        if let known = stmt.withUTF8(3, { $0.map(RecordKind.init(bytes:)) }) {
            if let known { kind = known } else {
                warnings.add(table: table, rowId: rowId, "unknown kind '\(stmt.text(3) ?? "")', read as a location")
            }
        }
        guard values[15].isComposite else {
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
        return DecodedQueueRow.Decoded(time: time, kind: kind, latitude: latitude, longitude: longitude,
                                       uuidInColumn: uuidInColumn, timestampInColumn: timestampInColumn)
    }

    /// Streams queue rows oldest first without decoding the JSON (re-sync sends `json` as is).
    public func forEachQueueRow(_ body: (QueueRow) throws -> Void) rethrows {
        guard let table = layout.queueTable else { return }
        let col = quoteIdentifier(layout.recordColumn)
        let scan = RowScan(columns: """
            id, \(layout.queueColumns.contains("uuid") ? "uuid" : "NULL"), \(layout.hasTimestampColumn ? "timestamp" : "NULL"), \
            \(layout.hasKindColumn ? "kind" : "NULL"), \(layout.hasCreatedAtColumn ? "created_at" : "NULL"), \(col), \
            \(layout.hasAttemptsColumn ? "attempts" : "NULL")
            """, table: table)
        try scanRows(scan) { stmt, rowId in
            let json = stmt.text(5) ?? ""
            var uuid = stmt.text(1)
            var ts = stmt.text(2)
            var kind = stmt.text(3).flatMap(RecordKind.init(rawValue:))
            if uuid == nil || ts == nil || kind == nil, let parsed = try? JSONParser.parse(json) {
                uuid = uuid ?? parsed["uuid"]?.stringValue
                ts = ts ?? parsed["timestamp"]?.stringValue
                kind = kind ?? (parsed["geofence"] != nil ? .geofence : .location)
            }
            guard let uuid else {
                warnings.add(table: table, rowId: rowId, "record has no uuid")
                return true
            }
            try body(QueueRow(rowId: rowId, uuid: uuid, timestampText: ts ?? "", kind: kind ?? .location,
                              createdAt: stmt.text(4), json: json, attempts: stmt.isNull(6) ? nil : stmt.int(6)))
            return true
        }
    }
}

/// One queue row that decoded: its checked numbers, and the row's cells and picked fields to
/// read any text from. Valid only during the scan's callback (it points into SQLite's row).
struct DecodedQueueRow {
    /// `Dump.recordScanner`'s slots.
    enum Slot {
        static let latitude = 0, longitude = 1, accuracy = 2, speed = 3, heading = 4, altitude = 5, odometer = 6
        static let isMoving = 7, event = 8, geofenceIdentifier = 9, geofenceAction = 10, activityType = 11
        static let batteryLevel = 12, uuid = 13, timestamp = 14, coords = 15, geofenceObject = 16
    }

    /// What validation established.
    struct Decoded {
        var time: Double
        var kind: RecordKind
        var latitude: Double
        var longitude: Double
        /// The uuid comes from the `uuid` column (else from the record's JSON).
        var uuidInColumn: Bool
        /// The timestamp comes from the `timestamp` column (else from the record's JSON).
        var timestampInColumn: Bool
    }

    let stmt: Statement
    let fields: UnsafeBufferPointer<FieldScanner.Field>
    let rowId: Int64
    let decoded: Decoded

    var time: Double { decoded.time }
    var kind: RecordKind { decoded.kind }

    /// Calls `body` with the record column's bytes (never NULL for a decoded row).
    private func withJSON<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        stmt.withUTF8(5) { body($0 ?? UnsafeBufferPointer(start: nil, count: 0)) }
    }

    private func string(_ slot: Int) -> String? {
        let field = fields[slot]
        guard field.isString else { return nil }
        return withJSON { field.string(in: $0) }
    }

    /// The record's uuid (built now).
    var uuid: String { decoded.uuidInColumn ? stmt.text(1) ?? "" : string(Slot.uuid) ?? "" }

    /// The timestamp as written (built now).
    var timestampText: String { decoded.timestampInColumn ? stmt.text(2) ?? "" : string(Slot.timestamp) ?? "" }

    /// Replaces `buffer` with the timestamp's UTF-8 bytes as written (no allocation once
    /// `buffer` has grown to a timestamp's size); `String(decoding: buffer, as: UTF8.self)` is
    /// then `timestampText`.
    func copyTimestampText(into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        if decoded.timestampInColumn {
            stmt.withUTF8(2) { if let bytes = $0 { buffer.append(contentsOf: bytes) } }
        } else {
            let field = fields[Slot.timestamp]
            withJSON { json in field.withStringBytes(in: json) { if let bytes = $0 { buffer.append(contentsOf: bytes) } } }
        }
    }

    // The fix's own fields, as `record` reads them: a trace builds its fix from these without
    // the record's other texts (event, activity, the timestamp as written).
    /// Metres; nil when missing or negative (unknown).
    var accuracy: Double? { known(Slot.accuracy) }
    var speed: Double? { known(Slot.speed) }
    var heading: Double? { known(Slot.heading) }
    var altitude: Double? { fields[Slot.altitude].double }
    var odometer: Double? { fields[Slot.odometer].double }
    var isMoving: Bool? { fields[Slot.isMoving].bool }

    private func known(_ index: Int) -> Double? {
        guard let value = fields[index].double, value >= 0 else { return nil }
        return value
    }

    /// The full record, as `Dump.forEachRecord` hands it over.
    func record(includeText: Bool) -> QueueRecord {
        var geofence: GeofenceInfo?
        if let identifier = string(Slot.geofenceIdentifier) {
            geofence = GeofenceInfo(identifier: identifier, action: string(Slot.geofenceAction) ?? "")
        }
        return QueueRecord(
            rowId: rowId, uuid: uuid, timestampText: timestampText, time: decoded.time, kind: decoded.kind,
            createdAt: includeText ? stmt.text(4) : nil, json: includeText ? stmt.text(5) ?? "" : "",
            latitude: decoded.latitude, longitude: decoded.longitude,
            accuracy: accuracy, speed: speed, heading: heading, altitude: altitude, odometer: odometer,
            isMoving: isMoving, event: string(Slot.event), geofence: geofence,
            activityType: string(Slot.activityType), batteryLevel: fields[Slot.batteryLevel].double,
            attempts: stmt.isNull(6) ? nil : stmt.int(6))
    }
}

extension RecordKind {
    /// The kind spelled exactly by `bytes` (UTF-8), as `init(rawValue:)` reads a String.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        // Both names are eight bytes: one word compare each.
        guard bytes.count == 8, let base = bytes.baseAddress else { return nil }
        switch UnsafeRawPointer(base).loadUnaligned(as: UInt64.self) {
        case RecordKind.locationWord: self = .location
        case RecordKind.geofenceWord: self = .geofence
        default: return nil
        }
    }

    private static let locationWord = word("location")
    private static let geofenceWord = word("geofence")
    private static func word(_ name: StaticString) -> UInt64 {
        UnsafeRawPointer(name.utf8Start).loadUnaligned(as: UInt64.self)
    }
}
