import BGeoReader

/// Folds `location` log lines into a `CoverageMap` from their `data` bytes: the fix's own time
/// (`FixLineFields.quickTime`, or the full scan when the line is unusual), with motion and position
/// only when the scanner had to read them anyway. One per reading thread (it keeps scan buffers).
struct LocationLineFolder {
    private var fields: [FieldScanner.Field] = []

    /// The rows the timeline handles from their cells alone.
    enum QuickRow { case location, queueInsert }

    /// Takes a row the timeline needs no `LogEntry` for: a `location` line is folded into
    /// `coverage`; a `queue.insert` line (when `queueInserts`: the timeline only counts those) needs
    /// nothing. Nil for any other row.
    mutating func take(_ row: LogRowView, into coverage: inout CoverageMap, queueInserts: Bool) -> QuickRow? {
        if row.eventIs("location") {
            row.withData { add(lineTime: row.time, rowId: row.rowId, data: $0, to: &coverage) }
            return .location
        }
        return queueInserts && row.eventIs("queue.insert") ? .queueInsert : nil
    }

    /// Adds the line logged at `lineTime` in row `rowId` (`data` nil: the line has none).
    mutating func add(lineTime: Double, rowId: Int64, data: UnsafeBufferPointer<UInt8>?, to coverage: inout CoverageMap) {
        guard let data else {
            coverage.add(lineTime, moving: nil)
            return
        }
        if let time = FixLineFields.quickTime(data) {
            coverage.add(CoverageMap.Edge(time: time, logRow: rowId))
            return
        }
        guard let line = FixLineFields(data, reusing: &fields) else {
            coverage.add(lineTime, moving: nil)
            return
        }
        coverage.add(CoverageMap.Edge(time: line.time ?? lineTime, moving: line.moving, latitude: line.latitude, longitude: line.longitude))
    }
}
