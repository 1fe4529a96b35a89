import BGeoSQLite

/// The few fixes that border a gap, completed from their rows: the timeline places fixes from
/// their times alone and reads motion and position only for these.
extension Dump {
    /// One queued record's motion state (`is_moving`, else `coords.speed > 1 m/s`) and position,
    /// filled into `edge`; used only for the fixes that border a gap.
    func completeQueueEdge(_ edge: CoverageMap.Edge) -> CoverageMap.Edge {
        guard let rowId = edge.queueRow, let table = layout.queueTable else { return edge }
        let sql = "SELECT \(quoteIdentifier(layout.recordColumn)) FROM \(quoteIdentifier(table)) WHERE id = ?"
        return complete(edge, sql: sql, rowId: rowId) { json in
            var values: [FieldScanner.Field] = []
            guard Dump.motionScanner.scan(json, into: &values) else { return nil }
            return (CoverageMap.Edge.moving(isMoving: values[0].bool, speed: values[1].double), values[2].double, values[3].double)
        }
    }

    static let motionScanner = FieldScanner(paths: ["is_moving", "coords.speed", "coords.latitude", "coords.longitude"])

    /// A `location` log line's motion state and position, filled into `edge` (gap edges only).
    func completeLogEdge(_ edge: CoverageMap.Edge) -> CoverageMap.Edge {
        guard let rowId = edge.logRow else { return edge }
        return complete(edge, sql: "SELECT data FROM log_entries WHERE id = ?", rowId: rowId) { data in
            var values: [FieldScanner.Field] = []
            return FixLineFields(data, reusing: &values).map { ($0.moving, $0.latitude, $0.longitude) }
        }
    }

    /// Reads one row's JSON (`sql`, bound to `rowId`) with `read` and fills what `edge` is missing.
    private func complete(_ edge: CoverageMap.Edge, sql: String, rowId: Int64,
                          read: (UnsafeBufferPointer<UInt8>) -> (moving: Bool?, latitude: Double?, longitude: Double?)?) -> CoverageMap.Edge {
        guard let stmt = try? database.prepare(sql), (try? stmt.bind([.integer(rowId)])) != nil, (try? stmt.step()) == true,
              var text = stmt.text(0), let found = text.withUTF8(read) else { return edge }
        var completed = edge
        if completed.moving == nil { completed.moving = found.moving }
        if completed.latitude == nil { completed.latitude = found.latitude }
        if completed.longitude == nil { completed.longitude = found.longitude }
        return completed
    }
}
