import BGeoSQLite
/// One queued fix as the gap finder needs it: when, and where to look its details up. The uuid
/// is read only when asked for (a million String allocations saved on a full queue).
struct QueueFix {
    var rowId: Int64
    /// nil for a row whose `timestamp` is not a time (warned): still a queued record.
    var time: Double?
    /// A geofence record (`kind` geofence): queued, but not a fix, so it never ends a gap.
    var isGeofence: Bool
    let uuid: () -> String
}

extension Dump {
    /// Streams the queue's fixes (row id, uuid, time) oldest first without decoding the record
    /// JSON: the `timestamp` column is enough to place a fix in time, and the motion state is
    /// looked up later only for the few fixes that end a stretch before a gap
    /// (`completeQueueFix`). Returns false when the layout has no `timestamp` column (LongPing),
    /// so the caller falls back to `forEachRecord`.
    func forEachQueueFix(_ body: (QueueFix) -> Void) -> Bool {
        // `body` must not keep the fix: its uuid reader is valid only during the call.
        guard let table = layout.queueTable, layout.hasTimestampColumn, layout.queueColumns.contains("uuid") else {
            return false
        }
        let kind = layout.hasKindColumn ? "kind" : "NULL"
        scanRows(RowScan(columns: "id, uuid, timestamp, \(kind)", table: table)) { stmt, rowId in
            let time = stmt.withUTF8(2, { $0.flatMap(Timestamp.parse(bytes:)) })
            if time == nil { warnings.add(table: table, rowId: rowId, "timestamp '\(stmt.text(2) ?? "NULL")' is not an ISO-8601 time") }
            body(QueueFix(rowId: rowId, time: time, isGeofence: Dump.isGeofenceKind(stmt, column: 3), uuid: { stmt.text(1) ?? "" }))
            return true
        }
        return true
    }

    /// True when column `column` (a queue row's `kind`) says `geofence`.
    static func isGeofenceKind(_ stmt: Statement, column: Int) -> Bool {
        stmt.withUTF8(column) { bytes in bytes.map { $0.elementsEqual("geofence".utf8) } ?? false }
    }

    /// One queued record's motion state (`is_moving`, else `coords.speed > 1 m/s`) and position,
    /// filled into `fix`; used only for the fixes that border a gap.
    func completeQueueFix(_ fix: CoverageMap.Fix) -> CoverageMap.Fix {
        guard let rowId = fix.queueRow, let table = layout.queueTable else { return fix }
        return completeFix(fix, sql: "SELECT \(quoteIdentifier(layout.recordColumn)) FROM \(quoteIdentifier(table)) WHERE id = ?",
                           rowId: rowId, scanner: Dump.motionScanner)
    }

    static let motionScanner = FieldScanner(paths: ["is_moving", "coords.speed", "coords.latitude", "coords.longitude"])

    /// A `location` log line's motion state and position, filled into `fix` (gap edges only).
    func completeLogFix(_ fix: CoverageMap.Fix) -> CoverageMap.Fix {
        guard let rowId = fix.logRow else { return fix }
        return completeFix(fix, sql: "SELECT data FROM log_entries WHERE id = ?", rowId: rowId, scanner: Dump.locationLineScanner)
    }

    static let locationLineScanner = FieldScanner(paths: ["is_moving", "speed", "latitude", "longitude"])

    /// Reads one row's JSON with `scanner` (paths: moving, speed, latitude, longitude) and fills
    /// what `fix` is missing.
    private func completeFix(_ fix: CoverageMap.Fix, sql: String, rowId: Int64, scanner: FieldScanner) -> CoverageMap.Fix {
        guard let stmt = try? database.prepare(sql), (try? stmt.bind([.integer(rowId)])) != nil, (try? stmt.step()) == true,
              let text = stmt.text(0), let values = scanner.scan(text) else { return fix }
        var completed = fix
        if completed.moving == nil {
            if let moving = values[0].bool { completed.moving = moving }
            else if let speed = values[1].double, speed >= 0 { completed.moving = speed > 1 }
        }
        if completed.latitude == nil { completed.latitude = values[2].double }
        if completed.longitude == nil { completed.longitude = values[3].double }
        return completed
    }
}
