import BGeoReader
import Foundation

extension TraceBuilder {
    /// The usable `location`, `filter.reject` and `filter.adjust` lines, in log order, before
    /// they are merged with the queue.
    struct ParsedLines {
        /// The log events that carry fixes.
        static let events: Set<String> = ["location", "filter.reject", "filter.adjust"]
        /// `events` in order, as a scan's query names them (every reader of the fix lines asks these).
        static let eventList = events.sorted()
        /// What a parsed line is to the trace (`Fix.lineKind`).
        enum Kind { case location, unmatchedLocation, reject, adjust }
        var items: [Fix] = []
        var locations = 0
        var rejects = 0
        var adjusts = 0
        var skipped = 0
        private var values: [FieldScanner.Field] = []

        init() {}

        /// Hands over the items parsed so far (the counts stay), for a consumer that merges
        /// them while the log is still being read.
        mutating func takeItems() -> [Fix] {
            defer { items = [] }
            return items
        }

        /// Parses one fix line (a row whose event is in `events`) into `items`; an unusable line
        /// becomes a located warning in `warnings` and is counted as skipped.
        mutating func add(_ row: some LogLineFields, warnings: WarningLog) {
            if let item = parse(row, warnings: warnings) { items.append(item) }
        }

        /// Parses one fix line, counting it, without keeping it (the streamed trace spools it).
        /// It is read from the row's cells: its data is scanned where SQLite holds it.
        /// `checksData`: the read left this row's JSON check to the parse (the scan validates the
        /// data; when it fails, `checkData` warns first, before the line's own warning).
        mutating func parse(_ row: some LogLineFields, warnings: WarningLog, checksData: Bool = false) -> Fix? {
            // Taken out while scanning (a closure cannot capture `self` inout), so no copy is made.
            var values: [FieldScanner.Field] = []
            swap(&values, &self.values)
            defer { swap(&values, &self.values) }
            return row.withData { bytes in
                guard let bytes else {
                    skip(warnings, row.rowId, "\(row.event) line has no data")
                    return nil
                }
                return parse(row, bytes, &values, warnings: warnings, checksData: checksData)
            }
        }

        /// `parse` on the line's `data` bytes (`FixLineFields`), by replay's rules: a line needs a
        /// position in range (a `location` line's raw one will do) and, when it states a
        /// timestamp, one that is a time. Only the texts a fix keeps become Strings.
        private mutating func parse(_ row: some LogLineFields, _ bytes: UnsafeBufferPointer<UInt8>, _ values: inout [FieldScanner.Field],
                                    warnings: WarningLog, checksData: Bool) -> Fix? {
            let event = row.event
            guard let line = FixLineFields(bytes, reusing: &values) else {
                if checksData { row.checkData(warnings) }
                skip(warnings, row.rowId, "\(event) data is not a JSON object")
                return nil
            }
            // The fix's own time; the line's ts is when it was logged (a fallback only).
            var time = row.time
            let timestampText: String
            if line.hasTimestamp {
                guard let t = line.time else {
                    skip(warnings, row.rowId, "\(event) timestamp '\(line.timestampText ?? "")' is not an ISO-8601 time")
                    return nil
                }
                time = t
                timestampText = line.timestampText ?? ""
            } else {
                timestampText = row.tsText
            }
            func coordinate(_ value: Double?, _ range: ClosedRange<Double>) -> Double? {
                guard let value, range.contains(value) else { return nil }
                return value
            }
            let rawLat = coordinate(line.rawLatitude, -90...90)
            let rawLon = coordinate(line.rawLongitude, -180...180)
            let hasRaw = rawLat != nil && rawLon != nil && event == "location"
            // A location line with raw_* only is still a usable fix (replay wants the raw position anyway).
            guard let latitude = coordinate(line.latitude, -90...90) ?? (hasRaw ? rawLat : nil),
                  let longitude = coordinate(line.longitude, -180...180) ?? (hasRaw ? rawLon : nil) else {
                skip(warnings, row.rowId, "\(event) has no usable latitude/longitude")
                return nil
            }
            let accuracy = line.accuracy
            let speed = line.speed
            switch event {
            case "location":
                locations += 1
                let fix = Fix(time: time, latitude: rawLat ?? latitude, longitude: rawLon ?? longitude, accuracy: accuracy,
                              speed: speed, recordedOdometer: line.odometer, source: .logLocation,
                              logId: row.rowId, uuid: line.uuid ?? "", timestampText: timestampText,
                              isRaw: hasRaw, heading: line.heading, altitude: line.altitude,
                              isMoving: line.isMoving)
                if fix.uuid.isEmpty {
                    warnings.add(table: "log_entries", rowId: row.rowId,
                                 "location line has no uuid (cannot be matched to the queue); replayed without dedupe")
                }
                return fix
            case "filter.reject":
                rejects += 1
                return Fix(
                    time: time, latitude: latitude, longitude: longitude, accuracy: accuracy, speed: speed,
                    source: .logReject, logId: row.rowId, timestampText: timestampText,
                    recordedReason: line.reason.flatMap(RejectReason.init(rawValue:)))
            default:  // filter.adjust: latitude/longitude are the raw position before the move
                adjusts += 1
                return Fix(
                    time: time, latitude: latitude, longitude: longitude, accuracy: accuracy, speed: speed,
                    source: .logAdjust, logId: row.rowId, timestampText: timestampText)
            }
        }

        private mutating func skip(_ warnings: WarningLog, _ rowId: Int64, _ message: String) {
            warnings.add(table: "log_entries", rowId: rowId, message + "; not replayed")
            skipped += 1
        }
    }

    /// Parses the fix lines of the log with the field scanner; unusable lines become located
    /// warnings on `dump`.
    static func readLogLines(_ dump: Dump) -> ParsedLines {
        var parsed = ParsedLines()
        // data is parsed here by the field scanner, which warns with its own located message.
        var query = LogQuery(events: ParsedLines.eventList)
        query.validatesData = false
        dump.forEachLogRow(query) { row in parsed.add(row, warnings: dump.warnings) }
        return parsed
    }
}

extension Fix {
    /// What a fix parsed from a log line is to the trace: a `location` line with a uuid (one fix
    /// with its queue row), one without (a fix of its own), a rejection, or an adjustment.
    var lineKind: TraceBuilder.ParsedLines.Kind {
        switch source {
        case .logReject: return .reject
        case .logAdjust: return .adjust
        case .queue, .logLocation: return uuid.isEmpty ? .unmatchedLocation : .location
        }
    }
}
