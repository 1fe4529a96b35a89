import BGeoSQLite

/// One queue row as a read through `QueueColumns` yields it: its cells, each decoded only when
/// asked (a summary that counts builds no String; re-sync copies the record's text as is).
/// Valid only during the read's callback: it points into SQLite's row.
package struct QueueRowCells {
    let stmt: Statement
    package let rowId: Int64

    /// The `uuid` column (built now); nil where the layout has none or the cell is NULL.
    package var uuidColumn: String? { stmt.text(QueueColumns.uuid) }

    /// The `timestamp` column as a time; nil where NULL or not an ISO-8601 time.
    package var queuedTime: Double? { stmt.withUTF8(QueueColumns.timestamp) { $0.flatMap(Timestamp.parse(bytes:)) } }

    /// The `timestamp` cell as written, for a warning that quotes it.
    var timestampCell: String? { stmt.text(QueueColumns.timestamp) }

    /// Whether the `kind` column says `geofence` (a queued record that is not a fix).
    package var isGeofenceKind: Bool {
        stmt.withUTF8(QueueColumns.kind) { bytes in bytes.map { $0.elementsEqual("geofence".utf8) } ?? false }
    }

    /// The `attempts` column; nil where the layout has none.
    package var attempts: Int? { stmt.isNull(QueueColumns.attempts) ? nil : stmt.int(QueueColumns.attempts) }

    /// The row as stored, undecoded: uuid, timestamp and kind from their columns, else from the
    /// record's JSON; `hasUUID` false when neither holds a uuid (the row then says "").
    func stored() -> (row: QueueRow, hasUUID: Bool) {
        let json = stmt.text(QueueColumns.record) ?? ""
        var uuid = uuidColumn, ts = timestampCell
        var kind = stmt.text(QueueColumns.kind).flatMap(RecordKind.init(rawValue:))
        if uuid == nil || ts == nil || kind == nil, let parsed = try? JSONParser.parse(json) {
            uuid = uuid ?? parsed["uuid"]?.stringValue
            ts = ts ?? parsed["timestamp"]?.stringValue
            kind = kind ?? (parsed["geofence"] != nil ? .geofence : .location)
        }
        let row = QueueRow(rowId: rowId, uuid: uuid ?? "", timestampText: ts ?? "", kind: kind ?? .location,
                           createdAt: stmt.text(QueueColumns.createdAt), json: json, attempts: attempts)
        return (row, uuid != nil)
    }
}
