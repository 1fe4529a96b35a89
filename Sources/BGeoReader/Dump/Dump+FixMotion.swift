import BGeoSQLite

/// The motion state and position of one fix, read from its row: the timeline places fixes from
/// their times alone and reads these only for the fixes that border a gap.
extension Dump {
    /// A queued record's motion (`is_moving`, else `coords.speed > 1 m/s`) and position; nil when
    /// the row cannot be read.
    package func motion(ofQueueRow rowId: Int64) -> FixMotion? {
        guard let table = layout.queueTable else { return nil }
        let sql = "SELECT \(quoteIdentifier(layout.recordColumn)) FROM \(quoteIdentifier(table)) WHERE id = ?"
        return readMotion(sql: sql, rowId: rowId) { json in
            var values: [FieldScanner.Field] = []
            guard Dump.motionScanner.scan(json, into: &values) else { return nil }
            return FixMotion(moving: FixMotion.moving(isMoving: values[0].bool, speed: values[1].double),
                             latitude: values[2].double, longitude: values[3].double)
        }
    }

    static let motionScanner = FieldScanner(paths: ["is_moving", "coords.speed", "coords.latitude", "coords.longitude"])

    /// A `location` log line's motion and position; nil when the row cannot be read.
    package func motion(ofLogRow rowId: Int64) -> FixMotion? {
        readMotion(sql: "SELECT data FROM log_entries WHERE id = ?", rowId: rowId) { data in
            var values: [FieldScanner.Field] = []
            return FixLineFields(data, reusing: &values).map { FixMotion(moving: $0.moving, latitude: $0.latitude, longitude: $0.longitude) }
        }
    }

    /// Reads one row's JSON (`sql`, bound to `rowId`) with `read`.
    private func readMotion(sql: String, rowId: Int64, read: (UnsafeBufferPointer<UInt8>) -> FixMotion?) -> FixMotion? {
        let stmt: Statement
        if let compiled = motionReads[sql] {
            stmt = compiled
        } else {
            guard let compiled = try? database.prepare(sql) else { return nil }
            motionReads[sql] = compiled  // stored once, not again on every read
            stmt = compiled
        }
        defer { stmt.reset() }
        guard (try? stmt.bind([.integer(rowId)])) != nil, (try? stmt.step()) == true, var text = stmt.text(0) else { return nil }
        return text.withUTF8(read)
    }
}
