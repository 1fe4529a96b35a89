import Foundation

extension TraceBuilder {
    /// The fields replay needs from a log line's `data`, picked in one pass (no JSON tree).
    static let logScanner = FieldScanner(paths: [
        "uuid", "timestamp", "latitude", "longitude", "accuracy", "speed", "odometer",
        "raw_latitude", "raw_longitude", "reason", "heading", "altitude", "is_moving",
    ])
    fileprivate enum Slot {
        static let uuid = 0, timestamp = 1, latitude = 2, longitude = 3, accuracy = 4, speed = 5, odometer = 6
        static let rawLatitude = 7, rawLongitude = 8, reason = 9, heading = 10, altitude = 11, isMoving = 12
    }

    /// The usable `location`, `filter.reject` and `filter.adjust` lines, in log order, before
    /// they are merged with the queue.
    struct ParsedLines {
        /// The log events that carry fixes.
        static let events: Set<String> = ["location", "filter.reject", "filter.adjust"]
        enum Kind { case location, unmatchedLocation, reject, adjust }
        /// A parsed line, compact: a million of them are held while the queue is read, so optional
        /// numbers are NaN-encoded and ids are plain (a `Fix` is rebuilt at merge time).
        struct Item {
            let kind: Kind
            let isRaw: Bool
            let isMoving: Bool?
            let reason: RejectReason?
            let time: Double
            let latitude: Double
            let longitude: Double
            let accuracy: Double
            let speed: Double
            let odometer: Double
            let heading: Double
            let altitude: Double
            let logId: Int64
            let uuid: String
            let timestampText: String

            init(kind: Kind, fix: Fix) {
                self.kind = kind
                isRaw = fix.isRaw
                isMoving = fix.isMoving
                reason = fix.recordedReason
                time = fix.time
                latitude = fix.latitude
                longitude = fix.longitude
                accuracy = fix.accuracy ?? .nan
                speed = fix.speed ?? .nan
                odometer = fix.recordedOdometer ?? .nan
                heading = fix.headingOrNaN
                altitude = fix.altitudeOrNaN
                logId = fix.logId ?? 0
                uuid = fix.uuid
                timestampText = fix.timestampText
            }

            var fix: Fix {
                func optional(_ v: Double) -> Double? { v.isNaN ? nil : v }
                let source: FixSource = kind == .reject ? .logReject : (kind == .adjust ? .logAdjust : .logLocation)
                return Fix(time: time, latitude: latitude, longitude: longitude, accuracy: optional(accuracy),
                           speed: optional(speed), recordedOdometer: optional(odometer), source: source, logId: logId,
                           uuid: uuid, timestampText: timestampText, recordedReason: reason,
                           isRaw: isRaw, heading: optional(heading), altitude: optional(altitude), isMoving: isMoving)
            }
        }
        var items: [Item] = []
        var locations = 0
        var rejects = 0
        var adjusts = 0
        var skipped = 0
        private var values: [FieldScanner.Field] = []

        init() {}

        /// Hands over the items parsed so far (the counts stay), for a consumer that merges
        /// them while the log is still being read.
        mutating func takeItems() -> [Item] {
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
        mutating func parse(_ row: some LogLineFields, warnings: WarningLog, checksData: Bool = false) -> Item? {
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

        /// `parse` on the line's `data` bytes: the picked fields stay byte ranges, and only the
        /// texts a fix keeps (its uuid, its timestamp as written) become Strings.
        private mutating func parse(_ row: some LogLineFields, _ bytes: UnsafeBufferPointer<UInt8>, _ values: inout [FieldScanner.Field],
                                    warnings: WarningLog, checksData: Bool) -> Item? {
            let event = row.event
            guard TraceBuilder.logScanner.scan(bytes, into: &values) else {
                if checksData { row.checkData(warnings) }
                skip(warnings, row.rowId, "\(event) data is not a JSON object")
                return nil
            }
            // The fix's own time; the line's ts is when it was logged (a fallback only).
            var time = row.time
            let timestampText: String
            let stamp = values[Slot.timestamp]
            if stamp.isString {
                guard let t = stamp.withStringBytes(in: bytes, { $0.flatMap(Timestamp.parse(bytes:)) }) else {
                    skip(warnings, row.rowId, "\(event) timestamp '\(stamp.string(in: bytes) ?? "")' is not an ISO-8601 time")
                    return nil
                }
                time = t
                timestampText = stamp.string(in: bytes) ?? ""
            } else {
                timestampText = row.tsText
            }
            func coordinate(_ slot: Int, _ range: ClosedRange<Double>) -> Double? {
                guard let v = values[slot].double, range.contains(v) else { return nil }
                return v
            }
            let rawLat = coordinate(Slot.rawLatitude, -90...90)
            let rawLon = coordinate(Slot.rawLongitude, -180...180)
            let hasRaw = rawLat != nil && rawLon != nil && event == "location"
            // A location line with raw_* only is still a usable fix (replay wants the raw position anyway).
            guard let latitude = coordinate(Slot.latitude, -90...90) ?? (hasRaw ? rawLat : nil),
                  let longitude = coordinate(Slot.longitude, -180...180) ?? (hasRaw ? rawLon : nil) else {
                skip(warnings, row.rowId, "\(event) has no usable latitude/longitude")
                return nil
            }
            let accuracy = values[Slot.accuracy].double.flatMap { $0 >= 0 ? $0 : nil }
            let speed = values[Slot.speed].double.flatMap { $0 >= 0 ? $0 : nil }
            switch event {
            case "location":
                locations += 1
                let fix = Fix(time: time, latitude: rawLat ?? latitude, longitude: rawLon ?? longitude, accuracy: accuracy,
                              speed: speed, recordedOdometer: values[Slot.odometer].double, source: .logLocation,
                              logId: row.rowId, uuid: values[Slot.uuid].string(in: bytes) ?? "", timestampText: timestampText,
                              isRaw: hasRaw, heading: values[Slot.heading].double, altitude: values[Slot.altitude].double,
                              isMoving: values[Slot.isMoving].bool)
                if fix.uuid.isEmpty {
                    warnings.add(table: "log_entries", rowId: row.rowId,
                                 "location line has no uuid (cannot be matched to the queue); replayed without dedupe")
                    return Item(kind: .unmatchedLocation, fix: fix)
                }
                return Item(kind: .location, fix: fix)
            case "filter.reject":
                rejects += 1
                return Item(kind: .reject, fix: Fix(
                    time: time, latitude: latitude, longitude: longitude, accuracy: accuracy, speed: speed,
                    source: .logReject, logId: row.rowId, timestampText: timestampText,
                    recordedReason: values[Slot.reason].string(in: bytes).flatMap(RejectReason.init(rawValue:))))
            default:  // filter.adjust: latitude/longitude are the raw position before the move
                adjusts += 1
                return Item(kind: .adjust, fix: Fix(
                    time: time, latitude: latitude, longitude: longitude, accuracy: accuracy, speed: speed,
                    source: .logAdjust, logId: row.rowId, timestampText: timestampText))
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
        var query = LogQuery(events: Array(ParsedLines.events).sorted())
        query.validatesData = false
        dump.forEachLogRow(query) { row in parsed.add(row, warnings: dump.warnings) }
        return parsed
    }
}
