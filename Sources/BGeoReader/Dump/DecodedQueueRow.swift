import BGeoSQLite

/// One queue row that decoded: its checked numbers, and the row's cells and picked fields to
/// read any text from. Valid only during the scan's callback (it points into SQLite's row).
package struct DecodedQueueRow {
    /// `Dump.recordScanner`'s slots.
    enum Slot {
        static let latitude = 0, longitude = 1, accuracy = 2, speed = 3, heading = 4, altitude = 5, odometer = 6
        static let isMoving = 7, event = 8, geofenceIdentifier = 9, geofenceAction = 10, activityType = 11
        static let batteryLevel = 12, uuid = 13, timestamp = 14, coords = 15, geofenceObject = 16
    }

    /// What validation established.
    package struct Decoded {
        var time: Double
        var kind: RecordKind
        package var latitude: Double
        package var longitude: Double
        /// The uuid comes from the `uuid` column (else from the record's JSON).
        var uuidInColumn: Bool
        /// The timestamp comes from the `timestamp` column (else from the record's JSON).
        var timestampInColumn: Bool
    }

    package let cells: QueueRowCells
    let fields: UnsafeBufferPointer<FieldScanner.Field>
    package let decoded: Decoded

    package var stmt: Statement { cells.stmt }
    package var rowId: Int64 { cells.rowId }

    package var time: Double { decoded.time }
    package var kind: RecordKind { decoded.kind }

    /// Calls `body` with the record column's bytes (never NULL for a decoded row).
    private func withJSON<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        stmt.withUTF8(QueueColumns.record) { body($0 ?? UnsafeBufferPointer(start: nil, count: 0)) }
    }

    private func string(_ slot: Int) -> String? {
        let field = fields[slot]
        guard field.isString else { return nil }
        return withJSON { field.string(in: $0) }
    }

    /// The record's uuid (built now).
    package var uuid: String { decoded.uuidInColumn ? stmt.text(QueueColumns.uuid) ?? "" : string(Slot.uuid) ?? "" }

    /// The timestamp as written (built now).
    package var timestampText: String { decoded.timestampInColumn ? stmt.text(QueueColumns.timestamp) ?? "" : string(Slot.timestamp) ?? "" }

    /// Replaces `buffer` with the timestamp's UTF-8 bytes as written (no allocation once
    /// `buffer` has grown to a timestamp's size); `String(decoding: buffer, as: UTF8.self)` is
    /// then `timestampText`.
    package func copyTimestampText(into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        if decoded.timestampInColumn {
            stmt.withUTF8(QueueColumns.timestamp) { if let bytes = $0 { buffer.append(contentsOf: bytes) } }
        } else {
            let field = fields[Slot.timestamp]
            withJSON { json in field.withStringBytes(in: json) { if let bytes = $0 { buffer.append(contentsOf: bytes) } } }
        }
    }

    // The fix's own fields, as `record` reads them: a trace builds its fix from these without
    // the record's other texts (event, activity, the timestamp as written).
    /// Metres; nil when missing or negative (unknown).
    package var accuracy: Double? { known(Slot.accuracy) }
    package var speed: Double? { known(Slot.speed) }
    package var heading: Double? { known(Slot.heading) }
    package var altitude: Double? { fields[Slot.altitude].double }
    package var odometer: Double? { fields[Slot.odometer].double }
    package var isMoving: Bool? { fields[Slot.isMoving].bool }

    private func known(_ index: Int) -> Double? {
        guard let value = fields[index].double, value >= 0 else { return nil }
        return value
    }

    /// The full record, as `Dump.forEachRecord` hands it over.
    package func record(includeText: Bool) -> QueueRecord {
        var geofence: GeofenceInfo?
        if let identifier = string(Slot.geofenceIdentifier) {
            geofence = GeofenceInfo(identifier: identifier, action: string(Slot.geofenceAction) ?? "")
        }
        return QueueRecord(
            rowId: rowId, uuid: uuid, timestampText: timestampText, time: decoded.time, kind: decoded.kind,
            createdAt: includeText ? stmt.text(QueueColumns.createdAt) : nil, json: includeText ? stmt.text(QueueColumns.record) ?? "" : "",
            latitude: decoded.latitude, longitude: decoded.longitude,
            accuracy: accuracy, speed: speed, heading: heading, altitude: altitude, odometer: odometer,
            isMoving: isMoving, event: string(Slot.event), geofence: geofence,
            activityType: string(Slot.activityType), batteryLevel: fields[Slot.batteryLevel].double,
            attempts: cells.attempts)
    }
}
