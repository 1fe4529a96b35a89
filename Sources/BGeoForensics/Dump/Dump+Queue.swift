extension Dump {
    /// The queue table name as warnings name it.
    public var queueTableName: String { layout.queueTable ?? (layout.format == .longping ? "queue" : "location_events") }

    /// Streams queue records oldest first (drain order, by row id), decoded. SQLite hands over the
    /// raw JSON text and `FieldScanner` validates it and picks the fields in one pass.
    /// A row that cannot be decoded becomes a located warning and is skipped; the scan goes on.
    public func forEachRecord(_ query: QueueQuery = QueueQuery(), _ body: (QueueRecord) throws -> Void) rethrows {
        guard let table = layout.queueTable else { return }
        let col = quoteIdentifier(layout.recordColumn)
        func column(_ name: String) -> String { layout.queueColumns.contains(name) ? name : "NULL" }
        var scan = RowScan(
            columns: "id, \(column("uuid")), \(column("timestamp")), \(column("kind")), \(column("created_at")), \(col), \(column("attempts"))",
            table: table)
        if let uuid = query.uuid {
            scan.conditions.append(layout.queueColumns.contains("uuid") ? "uuid = ?" : "instr(\(col), ?) > 0")
            scan.bindings.append(.text(uuid))
        }
        if let kind = query.kind, layout.hasKindColumn {
            scan.conditions.append("kind = ?")
            scan.bindings.append(.text(kind.rawValue))
        }
        let scanner = Dump.recordScanner
        var values: [ScannedValue] = []
        var emitted = 0
        try scanRows(scan) { stmt, rowId in
            guard let record = decodeRecord(stmt, rowId: rowId, table: table, scanner: scanner, values: &values,
                                            includeText: query.includeText) else { return true }
            if let uuid = query.uuid, record.uuid != uuid { return true }
            if let kind = query.kind, record.kind != kind { return true }
            if let since = query.since, record.time < since { return true }
            if let until = query.until, record.time > until { return true }
            try body(record)
            emitted += 1
            return query.limit.map { emitted < $0 } ?? true
        }
    }

    static let recordScanner = FieldScanner(paths: [
        "coords.latitude", "coords.longitude", "coords.accuracy", "coords.speed", "coords.heading", "coords.altitude",
        "odometer", "is_moving", "event", "geofence.identifier", "geofence.action", "activity.type", "battery.level",
        "uuid", "timestamp", "coords", "geofence",
    ])

    private func decodeRecord(_ stmt: Statement, rowId: Int64, table: String, scanner: FieldScanner,
                              values: inout [ScannedValue], includeText: Bool) -> QueueRecord? {
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
