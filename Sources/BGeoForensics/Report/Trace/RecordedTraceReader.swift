import Foundation

/// Reads the trace exactly as the engine recorded it, from the dump alone: queued location
/// records and `location` log lines are accepted fixes (deduplicated by uuid, the queue row
/// wins), `filter.reject` lines are rejected fixes with their reason, `filter.adjust` lines are
/// adjusted fixes (raw → adjusted position). Geofence records become events.
public enum RecordedTraceReader {
    static let logScanner = FieldScanner(paths: [
        "uuid", "timestamp", "latitude", "longitude", "accuracy", "speed", "heading", "altitude",
        "raw_latitude", "raw_longitude", "reason", "adjusted_latitude", "adjusted_longitude", "odometer", "is_moving",
    ])

    /// A fix line of the log, parsed: `location` lines carry their raw position as `fix.latitude`.
    struct LineFix {
        let isLocation: Bool
        let fix: ReportFix
    }

    public static func read(_ dump: Dump) -> ReportTrace {
        // The queue and the log's fix lines are independent scans: the lines are parsed on a
        // second thread through their own connection; their warnings follow the queue's.
        let lineScan = SecondConnectionScan.start(on: dump) { readLines($0) }
        var fixes: [ReportFix] = []
        var geofences: [ReportGeofence] = []
        var queueIndex: [String: Int] = [:]
        var head: String?
        dump.forEachDecodedRecord { row in
            if head == nil { head = row.uuid }
            if row.kind == .geofence {
                geofences.append(ReportGeofence(record: row.record(includeText: false)))
                return
            }
            fixes.append(queuedFix(row))
        }
        // Index the queue by uuid in one sized pass (growing a million-entry dictionary rehashes it ~20 times).
        queueIndex.reserveCapacity(fixes.count + 1024)
        for i in fixes.indices {
            if let uuid = fixes[i].uuid, queueIndex[uuid] == nil { queueIndex[uuid] = i }
        }
        let lines = lineScan?.finish(into: dump.warnings) ?? readLines(dump)
        var seenLogUUIDs: Set<String> = []
        for line in lines {
            if line.isLocation, let uuid = line.fix.uuid {
                if let index = queueIndex[uuid] {
                    learn(from: line.fix, into: &fixes[index])
                    continue
                }
                guard seenLogUUIDs.insert(uuid).inserted else { continue }
            }
            fixes.append(line.fix)
        }
        // Time order; ties keep reading order (sort is not stable, so break ties by position).
        // Usually the fixes already are in order: then no copy is made.
        let inOrder = fixes.indices.dropFirst().allSatisfy { fixes[$0 - 1].time <= fixes[$0].time }
        let ordered = inOrder ? fixes : fixes.enumerated().sorted { a, b in
            a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
        }.map(\.element)
        geofences.sort { $0.time < $1.time }
        return ReportTrace(fixes: ordered, geofences: geofences, queueHeadUUID: head)
    }

    /// A queued location record (its decoded row) as the engine recorded it.
    static func queuedFix(_ row: DecodedQueueRow) -> ReportFix {
        ReportFix(time: row.time, uuid: row.uuid, latitude: row.decoded.latitude, longitude: row.decoded.longitude,
                  accuracy: row.accuracy, speed: row.speed, heading: row.heading, altitude: row.altitude,
                  odometer: row.odometer, isMoving: row.isMoving, source: .queue(rowId: row.rowId))
    }

    /// A `location` line of a queued fix: the queue row is kept and learns the raw position (each
    /// line in turn, so the last one's) and the fields it lacks.
    static func learn(from line: ReportFix, into queued: inout ReportFix) {
        queued.latitude = line.latitude
        queued.longitude = line.longitude
        if queued.odometer == nil { queued.odometer = line.odometer }
        if queued.isMoving == nil { queued.isMoving = line.isMoving }
    }

    /// The `location`, `filter.reject` and `filter.adjust` lines, parsed in log order; a line
    /// without a usable position becomes a located warning.
    static func readLines(_ dump: Dump) -> [LineFix] {
        var lines: [LineFix] = []
        var parser = LineParser()
        dump.forEachLogRow(LogQuery(events: ["location", "filter.reject", "filter.adjust"])) { row in
            if let line = parser.parse(row, warnings: dump.warnings) { lines.append(line) }
        }
        return lines
    }

    /// Parses fix lines one at a time (the scanner's buffers are reused).
    struct LineParser {
        private var values: [FieldScanner.Field] = []
        /// Adds `forEachLogEntry`'s "data is not valid JSON" warning itself, for a scan that does
        /// not validate (`LogQuery.validatesData` false): the same warning for the same lines.
        var warnsInvalidData = false

        /// The line's fix, or nil (a line without a usable position becomes a located warning).
        /// It is read from the row's cells: its data is scanned where SQLite holds it.
        mutating func parse(_ entry: some LogLineFields, warnings: WarningLog) -> LineFix? {
            // Taken out while scanning (a closure cannot capture `self` inout), so no copy is made.
            var values: [FieldScanner.Field] = []
            swap(&values, &self.values)
            defer { swap(&values, &self.values) }
            let warnsInvalidData = self.warnsInvalidData
            return entry.withData { bytes in
                guard let bytes else { return nil }
                return LineParser.parse(entry, bytes, &values, warnings: warnings, warnsInvalidData: warnsInvalidData)
            }
        }

        /// `parse` on the line's `data` bytes: only the texts a fix keeps become Strings.
        private static func parse(_ entry: some LogLineFields, _ bytes: UnsafeBufferPointer<UInt8>, _ values: inout [FieldScanner.Field],
                                  warnings: WarningLog, warnsInvalidData: Bool) -> LineFix? {
            guard logScanner.scan(bytes, into: &values) else {
                // Valid JSON that is not an object is skipped silently, as before.
                if warnsInvalidData { entry.checkData(warnings) }
                return nil
            }
            func number(_ i: Int) -> Double? { values[i].double }
            func known(_ i: Int) -> Double? { values[i].double.flatMap { $0 >= 0 ? $0 : nil } }
            guard let lat = number(2), let lon = number(3), (-90.0...90.0).contains(lat), (-180.0...180.0).contains(lon) else {
                warnings.add(table: "log_entries", rowId: entry.rowId, "\(entry.event) line has no usable latitude/longitude")
                return nil
            }
            let time = values[1].withStringBytes(in: bytes) { $0.flatMap(Timestamp.parse(bytes:)) } ?? entry.time
            let uuid = values[0].string(in: bytes)
            switch entry.event {
            case "location":
                return LineFix(isLocation: true, fix: ReportFix(
                    time: time, uuid: uuid, latitude: number(8) ?? lat, longitude: number(9) ?? lon,
                    outputLatitude: lat, outputLongitude: lon, accuracy: known(4), speed: known(5),
                    heading: known(6), altitude: number(7), odometer: number(13), isMoving: values[14].bool,
                    source: .log(rowId: entry.rowId)))
            case "filter.reject":
                return LineFix(isLocation: false, fix: ReportFix(
                    time: time, uuid: uuid, latitude: lat, longitude: lon, accuracy: known(4),
                    decision: .rejected, reason: values[10].string(in: bytes) ?? "unknown", source: .log(rowId: entry.rowId)))
            default:
                return LineFix(isLocation: false, fix: ReportFix(
                    time: time, uuid: uuid, latitude: lat, longitude: lon,
                    outputLatitude: number(11) ?? lat, outputLongitude: number(12) ?? lon,
                    accuracy: known(4), decision: .adjusted, source: .log(rowId: entry.rowId)))
            }
        }
    }
}
