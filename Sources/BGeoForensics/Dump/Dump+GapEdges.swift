import BGeoSQLite

/// The few fixes that border a gap, completed from their rows: the timeline places fixes from
/// their times alone and reads motion and position only for these.
extension Dump {
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
