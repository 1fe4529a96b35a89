import BGeoReader
import Foundation

/// Reads the trace exactly as the engine recorded it, from the dump alone: queued location
/// records and `location` log lines are accepted fixes (deduplicated by uuid, the queue row
/// wins), `filter.reject` lines are rejected fixes with their reason, `filter.adjust` lines are
/// adjusted fixes (raw → adjusted position). Geofence records become events.
public enum RecordedTraceReader {
    public static func read(_ dump: Dump) -> ReportTrace {
        // The queue and the log's fix lines are independent scans: the lines are parsed on a
        // second thread through their own connection; their warnings follow the queue's.
        let lineScan = ScanRunner.beside(dump) { readLines($0) }
        var fixes: [DecidedFix] = []
        var geofences: [ReportGeofence] = []
        // By bytes (`ExactText`), as the queue's UNIQUE uuid column tells records apart.
        var queueIndex: [ExactText: Int] = [:]
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
            if let uuid = fixes[i].fix.statedUUID, queueIndex[ExactText(uuid)] == nil { queueIndex[ExactText(uuid)] = i }
        }
        let lines = lineScan.value()
        var seenLogUUIDs: Set<ExactText> = []
        for line in lines {
            if line.isLocationLine, let uuid = line.fix.statedUUID {
                if let index = queueIndex[ExactText(uuid)] {
                    learn(from: line, into: &fixes[index])
                    continue
                }
                guard seenLogUUIDs.insert(ExactText(uuid)).inserted else { continue }
            }
            fixes.append(line)
        }
        // Time order; ties keep reading order (sort is not stable, so break ties by position).
        // Usually the fixes already are in order: then no copy is made.
        let inOrder = fixes.indices.dropFirst().allSatisfy { fixes[$0 - 1].fix.time <= fixes[$0].fix.time }
        let ordered = inOrder ? fixes : fixes.enumerated().sorted { a, b in
            a.element.fix.time != b.element.fix.time ? a.element.fix.time < b.element.fix.time : a.offset < b.offset
        }.map(\.element)
        geofences.sort { $0.time < $1.time }
        return ReportTrace(fixes: ordered, geofences: geofences, queueHeadUUID: head)
    }

    /// A queued location record (its decoded row) as the engine recorded it.
    static func queuedFix(_ row: DecodedQueueRow) -> DecidedFix {
        let latitude = row.decoded.latitude, longitude = row.decoded.longitude
        var fix = Fix(time: row.time, latitude: latitude, longitude: longitude, accuracy: row.accuracy, speed: row.speed,
                      recordedOdometer: row.odometer, source: .queue, rowId: row.rowId, uuid: row.uuid, isRaw: false,
                      isMoving: row.isMoving)
        fix.keepAsRecorded(uuidStated: true, heading: row.heading, altitude: row.altitude)
        return DecidedFix(recorded: fix, outputLatitude: latitude, outputLongitude: longitude)
    }

    /// A `location` line of a queued fix: the queue row is kept and learns the raw position (each
    /// line in turn, so the last one's) and the fields it lacks.
    static func learn(from line: DecidedFix, into queued: inout DecidedFix) {
        queued.fix.latitude = line.fix.latitude
        queued.fix.longitude = line.fix.longitude
        queued.fix.isRaw = line.fix.isRaw
        if queued.fix.recordedOdometer == nil { queued.fix.recordedOdometer = line.fix.recordedOdometer }
        if queued.fix.isMoving == nil { queued.fix.isMoving = line.fix.isMoving }
    }

    /// The `location`, `filter.reject` and `filter.adjust` lines, parsed in log order; a line
    /// without a usable position becomes a located warning.
    static func readLines(_ dump: Dump) -> [DecidedFix] {
        var lines: [DecidedFix] = []
        var parser = LineParser()
        dump.forEachLogRow(LogQuery(events: TraceBuilder.ParsedLines.eventList)) { row in
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
        mutating func parse(_ entry: some LogLineFields, warnings: WarningLog) -> DecidedFix? {
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

        /// `parse` on the line's `data` bytes (`FixLineFields`), by the recorded trace's rules: a
        /// line needs its stated position in range; a timestamp that is not a time falls back to
        /// when the line was logged. Only the texts a fix keeps become Strings.
        private static func parse(_ entry: some LogLineFields, _ bytes: UnsafeBufferPointer<UInt8>, _ values: inout [FieldScanner.Field],
                                  warnings: WarningLog, warnsInvalidData: Bool) -> DecidedFix? {
            guard let line = FixLineFields(bytes, reusing: &values) else {
                // Valid JSON that is not an object is skipped silently, as before.
                if warnsInvalidData { entry.checkData(warnings) }
                return nil
            }
            guard let lat = line.latitude, let lon = line.longitude, (-90.0...90.0).contains(lat), (-180.0...180.0).contains(lon) else {
                warnings.add(table: "log_entries", rowId: entry.rowId, "\(entry.event) line has no usable latitude/longitude")
                return nil
            }
            let time = line.time ?? entry.time
            let uuid = line.uuid
            // A reject or adjust line's speed is left out: the recorded trace's outputs never showed one.
            switch entry.event {
            case "location":
                var fix = Fix(time: time, latitude: line.rawLatitude ?? lat, longitude: line.rawLongitude ?? lon,
                              accuracy: line.accuracy, speed: line.speed, recordedOdometer: line.odometer, source: .logLocation,
                              logId: entry.rowId, uuid: uuid ?? "", isRaw: line.rawLatitude != nil && line.rawLongitude != nil,
                              isMoving: line.isMoving)
                fix.keepAsRecorded(uuidStated: uuid != nil, heading: line.knownHeading, altitude: line.altitude)
                return DecidedFix(recorded: fix, outputLatitude: lat, outputLongitude: lon)
            case "filter.reject":
                // A reason none of the replay's is kept as logged, a missing one as "unknown".
                let text = line.reason ?? "unknown"
                let reason = RejectReason(rawValue: text)
                var fix = Fix(time: time, latitude: lat, longitude: lon, accuracy: line.accuracy, source: .logReject,
                              logId: entry.rowId, uuid: uuid ?? "", recordedReason: reason)
                fix.loggedReason = reason == nil ? text : nil
                fix.keepAsRecorded(uuidStated: uuid != nil)
                return DecidedFix(recorded: fix, outputLatitude: lat, outputLongitude: lon)
            default:
                var fix = Fix(time: time, latitude: lat, longitude: lon, accuracy: line.accuracy, source: .logAdjust,
                              logId: entry.rowId, uuid: uuid ?? "")
                fix.keepAsRecorded(uuidStated: uuid != nil)
                return DecidedFix(recorded: fix, outputLatitude: line.adjustedLatitude ?? lat,
                                  outputLongitude: line.adjustedLongitude ?? lon)
            }
        }
    }
}

extension Fix {
    /// Keeps what the dump states as the recorded trace shows it: an empty uuid the dump states
    /// stays a uuid, and heading and altitude are kept as read (`Fix.init`'s filters are replay's).
    fileprivate mutating func keepAsRecorded(uuidStated: Bool, heading: Double? = nil, altitude: Double? = nil) {
        statesEmptyUUID = uuidStated && uuid.isEmpty
        headingOrNaN = heading ?? .nan
        altitudeOrNaN = altitude ?? .nan
    }
}
