import BGeoSQLite

extension Dump {
    /// The queue table name as warnings name it.
    public var queueTableName: String { layout.queueTable ?? (layout.format == .longping ? "queue" : "location_events") }

    /// Streams queue records oldest first (drain order, by row id), decoded. SQLite hands over the
    /// raw JSON text and `FieldScanner` validates it and picks the fields in one pass.
    /// A row that cannot be decoded becomes a located warning and is skipped; the scan goes on.
    public func forEachRecord(_ query: QueueQuery = QueueQuery(), _ body: (QueueRecord) throws -> Void) rethrows {
        try forEachRecord(query, takenFromRow: nil, body)
    }

    /// `forEachRecord`, offering each row that passes the query first to `takenFromRow`: a row it
    /// takes from its decoded cells (returns true) is not built into a `QueueRecord` nor passed to
    /// `body`. A uuid query offers none (its last check reads the record's uuid). `rows` limits
    /// the read to those row ids, `after` to the rows after that id (where the caller reads on from
    /// rows a `PipedRead` stood for); `continuing` sees each row id the statement yields before
    /// anything else is done with the row, and ends the read by returning false.
    package func forEachRecord(_ query: QueueQuery, rows: Range<Int64>? = nil, after: Int64? = nil,
                               continuing: ((Int64) -> Bool)? = nil, takenFromRow: ((DecodedQueueRow) -> Bool)?,
                               _ body: (QueueRecord) throws -> Void) rethrows {
        guard let table = layout.queueTable else { return }
        let take = query.uuid == nil ? takenFromRow : nil
        var scan = queueScan(table)
        scan.rows = rows
        scan.startsAfter = after
        if let uuid = query.uuid {
            let record = quoteIdentifier(layout.recordColumn)
            scan.conditions.append(layout.queueSelection.hasUUID ? "uuid = ?" : "instr(\(record), ?) > 0")
            scan.bindings.append(.text(uuid))
        }
        if let kind = query.kind, layout.hasKindColumn {
            scan.conditions.append("kind = ?")
            scan.bindings.append(.text(kind.rawValue))
        }
        var emitted = 0
        try scanDecodedRows(scan, table: table, continuing: continuing) { row in
            if let kind = query.kind, row.kind != kind { return true }
            if let since = query.since, row.time < since { return true }
            if let until = query.until, row.time > until { return true }
            if let take, take(row) {
                emitted += 1
                return query.limit.map { emitted < $0 } ?? true
            }
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
    /// decodable or not. `everyRow` sees each row read before it is decoded, whether or not it
    /// decodes.
    @discardableResult
    package func forEachDecodedRecord(rows: Range<Int64>? = nil, everyRow: ((QueueRowCells) -> Void)? = nil,
                              _ body: (DecodedQueueRow) throws -> Void) rethrows -> Int {
        guard let table = layout.queueTable else { return 0 }
        var scan = queueScan(table)
        scan.rows = rows
        var read = 0
        try scanDecodedRows(scan, table: table, scanner: Dump.recordScanner, everyRow: everyRow) { row in
            read += 1
            guard let row else { return true }
            try body(row)
            return true
        }
        return read
    }

    /// The queue's row ids split in two halves (`first`: ids before `middle`), for reading the
    /// queue on two connections; nil when the table is small or its bounds cannot be read.
    package func queueHalves(minimumRows: Int64) -> (first: Range<Int64>, second: Range<Int64>)? {
        layout.queueTable.flatMap { rowHalves(of: $0, minimumRows: minimumRows) }
    }

    /// The row ids of `table` (one of the dump's own, keyed by `id`) split in two halves, for a
    /// read on two connections; nil when the id span is under `minimumRows` or cannot be read.
    package func rowHalves(of table: String, minimumRows: Int64) -> (first: Range<Int64>, second: Range<Int64>)? {
        guard let ids = rowIdSpan(of: table, minimumRows: minimumRows) else { return nil }
        let middle = ids.lowerBound + (ids.upperBound - ids.lowerBound) / 2
        return (ids.lowerBound..<middle, middle..<ids.upperBound)
    }

    /// The row ids of `table` cut in chunks of `size` ids, in order (fewer, larger ones where there
    /// would be more than `maxChunks`), for a read in chunks (`PipedRead`); nil as `rowHalves`.
    package func rowChunks(of table: String, minimumRows: Int64, size: Int64, maxChunks: Int64 = 4096) -> [Range<Int64>]? {
        guard let ids = rowIdSpan(of: table, minimumRows: minimumRows), size > 0, maxChunks > 0 else { return nil }
        let span = ids.upperBound - ids.lowerBound
        let step = max(size, span / maxChunks + 1)
        // Ids may reach Int64.max - 1 (a hostile dump): a chunk's end never overflows past the last.
        return stride(from: ids.lowerBound, to: ids.upperBound, by: Int(step)).map { start in
            let (end, overflow) = start.addingReportingOverflow(step)
            return start..<(overflow ? ids.upperBound : min(end, ids.upperBound))
        }
    }

    /// The ids from `table`'s first row to past its last; nil when they span under `minimumRows`
    /// or cannot be read.
    private func rowIdSpan(of table: String, minimumRows: Int64) -> Range<Int64>? {
        // Two subqueries: each is one b-tree seek (min and max together would scan the table).
        guard let stmt = try? database.prepare("SELECT (SELECT min(id) FROM \(quoteIdentifier(table))), (SELECT max(id) FROM \(quoteIdentifier(table)))"),
              (try? stmt.step()) == true, !stmt.isNull(0), !stmt.isNull(1) else { return nil }
        let low = stmt.int64(0), high = stmt.int64(1)
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span >= minimumRows, high < Int64.max else { return nil }
        return low..<(high + 1)
    }

    /// The queue's full row scan (every column of `QueueColumns`).
    private func queueScan(_ table: String) -> RowScan {
        RowScan(columns: layout.queueSelection.selectList, table: table)
    }

    /// The one read of the queue's rows: in id order, each as its cells, decoded only when asked.
    /// `row` returns false to stop.
    private func readQueue(_ scan: RowScan, _ row: (QueueRowCells) throws -> Bool) rethrows {
        try scanRows(scan) { stmt, rowId in try row(QueueRowCells(stmt: stmt, rowId: rowId)) }
    }

    static let recordScanner = FieldScanner(paths: [
        "coords.latitude", "coords.longitude", "coords.accuracy", "coords.speed", "coords.heading", "coords.altitude",
        "odometer", "is_moving", "event", "geofence.identifier", "geofence.action", "activity.type", "battery.level",
        "uuid", "timestamp", "coords", "geofence",
    ])

    /// Scans rows of `scan` (columns as `queueScan` selects them), decodes and validates each; a
    /// row that cannot be decoded becomes a located warning and is skipped. `row` returns false to stop.
    private func scanDecodedRows(_ scan: RowScan, table: String, continuing: ((Int64) -> Bool)? = nil,
                                 _ row: (DecodedQueueRow) throws -> Bool) rethrows {
        try scanDecodedRows(scan, table: table, scanner: Dump.recordScanner, continuing: continuing) { decoded in
            guard let decoded else { return true }
            return try row(decoded)
        }
    }

    /// The same, with `scanner` in `recordScanner`'s slots; `row` also sees every row
    /// that did not decode (as nil, after its warning).
    private func scanDecodedRows(_ scan: RowScan, table: String, scanner: FieldScanner,
                                 everyRow: ((QueueRowCells) -> Void)? = nil, continuing: ((Int64) -> Bool)? = nil,
                                 _ row: (DecodedQueueRow?) throws -> Bool) rethrows {
        var fields: [FieldScanner.Field] = []
        try readQueue(scan) { cells in
            if let continuing, !continuing(cells.rowId) { return false }
            everyRow?(cells)
            guard let decoded = decodeRecord(cells, table: table, scanner: scanner, fields: &fields) else {
                return try row(nil)
            }
            return try fields.withUnsafeBufferPointer { fields in
                try row(DecodedQueueRow(cells: cells, fields: fields, decoded: decoded))
            }
        }
    }

    /// Validates one row and decodes what every reader checks (no String is built unless a
    /// warning quotes one); nil, with a located warning, when the row cannot be used.
    private func decodeRecord(_ cells: QueueRowCells, table: String, scanner: FieldScanner,
                              fields values: inout [FieldScanner.Field]) -> DecodedQueueRow.Decoded? {
        let stmt = cells.stmt, rowId = cells.rowId
        func warn(_ message: String) -> DecodedQueueRow.Decoded? {
            warnings.add(table: table, rowId: rowId, message)
            return nil
        }
        let valid = stmt.withUTF8(QueueColumns.record) { bytes in bytes.map { scanner.scan($0, into: &values) } }
        guard let valid else { return warn("the record column is NULL") }
        guard valid else {
            var reason = "not a JSON object"
            if let text = stmt.text(QueueColumns.record) {
                do throws(JSONParser.ParseError) { _ = try JSONParser.parse(text) } catch { reason = error.description }
            }
            return warn("record JSON does not parse (\(reason))")
        }
        // The uuid column when it is there (even empty), else the record's own.
        let uuidInColumn: Bool
        if let length = stmt.withUTF8(QueueColumns.uuid, { $0.map(\.count) }) {
            guard length > 0 else { return warn("record has no uuid") }
            uuidInColumn = true
        } else {
            let slot = values[DecodedQueueRow.Slot.uuid]
            guard slot.isString, slot.end > slot.start || slot.kind == .escapedString else { return warn("record has no uuid") }
            uuidInColumn = false
        }
        let time: Double
        let timestampInColumn = !stmt.isNull(QueueColumns.timestamp)
        if timestampInColumn {
            guard let t = cells.queuedTime else {
                return warn("timestamp '\(cells.timestampCell ?? "")' is not an ISO-8601 time")
            }
            time = t
        } else {
            let slot = values[DecodedQueueRow.Slot.timestamp]
            guard slot.isString else { return warn("record has no timestamp") }
            let parsed = stmt.withUTF8(QueueColumns.record) { json in slot.withStringBytes(in: json!) { $0.flatMap(Timestamp.parse(bytes:)) } }
            guard let t = parsed else {
                let text = stmt.withUTF8(QueueColumns.record) { slot.string(in: $0!) } ?? ""
                return warn("timestamp '\(text)' is not an ISO-8601 time")
            }
            time = t
        }
        var kind: RecordKind = values[DecodedQueueRow.Slot.geofenceObject].isComposite ? .geofence : .location
        if let known = stmt.withUTF8(QueueColumns.kind, { $0.map(RecordKind.init(bytes:)) }) {
            if let known { kind = known } else {
                warnings.add(table: table, rowId: rowId, "unknown kind '\(stmt.text(QueueColumns.kind) ?? "")', read as a location")
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
        try readQueue(queueScan(table)) { cells in
            let (row, hasUUID) = cells.stored()
            guard hasUUID else {
                warnings.add(table: table, rowId: cells.rowId, "record has no uuid")
                return true
            }
            try body(row)
            return true
        }
    }

    /// Streams when each queued record was queued, oldest first, from the `uuid`, `timestamp`
    /// and `kind` columns alone (`QueueColumns.timingList`): the record's JSON is not read (the
    /// motion state is looked up later, only for the fixes that border a gap:
    /// `motion(ofQueueRow:)`). `time` is nil, with a located warning, where the timestamp is not a
    /// time. Returns false when the layout cannot be read so (LongPing has no `timestamp`
    /// column), so the caller reads the records whole.
    package func forEachQueueTiming(_ body: (QueueRowCells, _ time: Double?) -> Void) -> Bool {
        let columns = layout.queueSelection
        guard let table = layout.queueTable, columns.hasTiming else { return false }
        readQueue(RowScan(columns: columns.timingList, table: table)) { cells in
            let time = cells.queuedTime
            if time == nil { warnings.add(table: table, rowId: cells.rowId, "timestamp '\(cells.timestampCell ?? "NULL")' is not an ISO-8601 time") }
            body(cells, time)
            return true
        }
        return true
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
