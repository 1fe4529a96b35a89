import BGeoReader

/// Reads `location` log lines for a `CoverageMap` from their `data` bytes: the fix's own time
/// (`FixLineFields.quickTime`, or the full scan when the line is unusual), with motion and position
/// only when the scanner had to read them anyway. One per reading thread (it keeps scan buffers).
struct LocationLineFolder {
    private var fields: [FieldScanner.Field] = []

    /// The fix of the line logged at `lineTime` in row `rowId` (`data` nil: the line has none; a
    /// line without a readable fix counts at its own time, motion unknown).
    mutating func edge(lineTime: Double, rowId: Int64, data: UnsafeBufferPointer<UInt8>?) -> CoverageMap.Edge {
        guard let data else { return CoverageMap.Edge(time: lineTime, moving: nil) }
        if let time = FixLineFields.quickTime(data) { return CoverageMap.Edge(time: time, logRow: rowId) }
        guard let line = FixLineFields(data, reusing: &fields) else { return CoverageMap.Edge(time: lineTime, moving: nil) }
        return CoverageMap.Edge(time: line.time ?? lineTime, moving: line.moving, latitude: line.latitude, longitude: line.longitude)
    }
}
