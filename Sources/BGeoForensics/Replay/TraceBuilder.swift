import Foundation

/// The complete trace of a dump: every fix the engine saw, in time order, ready for replay.
public struct Trace: Sendable {
    /// Sorted by time, ties by row id (see `Fix.tieOrder`); `fixes[i].index == i`.
    public var fixes: [Fix]
    /// Geofence records: events, not fixes. Not replayed; kept for reports.
    public var geofences: [QueueRecord]
    public var stats: Stats

    /// Where the fixes came from and what was merged.
    public struct Stats: Sendable, Equatable {
        /// Queue records of kind location.
        public var queueLocations = 0
        /// `location` log lines read.
        public var logLocations = 0
        /// `filter.reject` lines read.
        public var logRejects = 0
        /// `filter.adjust` lines read.
        public var logAdjusts = 0
        /// Uuids seen more than once (queue and log, or log twice): each counted once per extra copy.
        public var duplicates = 0
        /// Duplicates whose copies disagree on the timestamp (the first-read copy's time is kept).
        public var conflictingDuplicates = 0
        /// filter.adjust lines merged into the accepted fix with the same timestamp (one fix, raw position).
        public var adjustsMerged = 0
        /// Fixes replayed from a raw position (raw_* or a filter line).
        public var rawPositions = 0
        /// Fixes known only by the engine's smoothed output (queue record or location line without raw_*).
        public var smoothedOnly = 0
        /// Log lines skipped as unreadable (each has a located warning).
        public var skippedLines = 0

        public init() {}

        public var json: JSONValue {
            ["queueLocations": .from(queueLocations), "logLocations": .from(logLocations), "logRejects": .from(logRejects),
             "logAdjusts": .from(logAdjusts), "duplicates": .from(duplicates),
             "conflictingDuplicates": .from(conflictingDuplicates), "adjustsMerged": .from(adjustsMerged),
             "rawPositions": .from(rawPositions), "smoothedOnly": .from(smoothedOnly), "skippedLines": .from(skippedLines)]
        }
    }

    public init(fixes: [Fix], geofences: [QueueRecord] = [], stats: Stats = Stats()) {
        self.fixes = fixes
        self.geofences = geofences
        self.stats = stats
    }
}

/// Builds the complete trace (replay-semantics.md, "Which fixes"): queue records of kind location
/// plus `location` log lines, deduplicated by uuid, raw_* preferred; `filter.reject` and
/// `filter.adjust` lines as raw fixes; geofence records set aside.
public enum TraceBuilder {
    /// The fields replay needs from a log line's `data`, picked in one pass (no JSON tree).
    static let logScanner = FieldScanner(paths: [
        "uuid", "timestamp", "latitude", "longitude", "accuracy", "speed", "odometer",
        "raw_latitude", "raw_longitude", "reason",
    ])
    private enum Slot {
        static let uuid = 0, timestamp = 1, latitude = 2, longitude = 3, accuracy = 4, speed = 5, odometer = 6
        static let rawLatitude = 7, rawLongitude = 8, reason = 9
    }

    public static func completeTrace(dump: Dump) -> Trace {
        var stats = Trace.Stats()
        // The queue and the log lines are independent scans, the two big costs of a replay: the log
        // lines are parsed on a second thread through their own connection to the private copy.
        // Their warnings are appended after the queue's, the order a sequential read gives.
        let lineReader = try? dump.parallelReader()
        let parsedLines = UncheckedBox<ParsedLines?>(nil)
        let group = DispatchGroup()
        if let lineReader {
            let reader = UncheckedBox(lineReader)
            group.enter()
            Thread.detachNewThread {
                parsedLines.value = readLogLines(reader.value)
                group.leave()
            }
        }
        var fixes: [Fix] = []
        var geofences: [QueueRecord] = []
        dump.forEachRecord(.fieldsOnly) { record in
            if record.kind == .geofence {
                geofences.append(record)
                return
            }
            stats.queueLocations += 1
            fixes.append(Fix(time: record.time, latitude: record.latitude, longitude: record.longitude,
                             accuracy: record.accuracy, speed: record.speed, recordedOdometer: record.odometer,
                             source: .queue, rowId: record.rowId, uuid: record.uuid, timestampText: record.timestampText,
                             isRaw: false))
        }
        group.wait()
        let lines: ParsedLines
        if let lineReader, let parsed = parsedLines.value {
            lines = parsed
            dump.warnings.add(contentsOf: lineReader.warnings)
        } else {
            lines = readLogLines(dump)
        }
        stats.logLocations = lines.locations
        stats.logRejects = lines.rejects
        stats.logAdjusts = lines.adjusts
        stats.skippedLines = lines.skipped

        // Index the queue by uuid in one sized pass (growing a million-entry dictionary row by row
        // rehashes it ~20 times). The uuid column is UNIQUE in every known schema, but a damaged
        // or hand-made dump may repeat one: the first row wins.
        var byUUID: [String: Int] = [:]
        byUUID.reserveCapacity(fixes.count + lines.items.count + 1024)
        var queueDuplicates: [Int] = []
        for i in fixes.indices {
            if let existing = byUUID.updateValue(i, forKey: fixes[i].uuid) {
                byUUID[fixes[i].uuid] = existing
                queueDuplicates.append(i)
                stats.duplicates += 1
                if fixes[existing].time != fixes[i].time { stats.conflictingDuplicates += 1 }
            }
        }
        if !queueDuplicates.isEmpty {
            for i in queueDuplicates.reversed() { fixes.remove(at: i) }
            byUUID.removeAll(keepingCapacity: true)
            for i in fixes.indices { byUUID[fixes[i].uuid] = i }
        }
        fixes.reserveCapacity(fixes.count + lines.items.count)

        var adjustLines: [Fix] = []
        for item in lines.items {
            let fix = item.fix
            switch item.kind {
            case .reject, .unmatchedLocation:
                fixes.append(fix)
            case .adjust:
                adjustLines.append(fix)
            case .location:
                guard let existing = byUUID[fix.uuid] else {
                    byUUID[fix.uuid] = fixes.count
                    fixes.append(fix)
                    continue
                }
                stats.duplicates += 1
                var kept = fixes[existing]
                if abs(kept.time - fix.time) > 0.0005 {
                    stats.conflictingDuplicates += 1
                    let other = kept.rowId.map { "location_events row \($0)" } ?? kept.logId.map { "log_entries row \($0)" } ?? "an earlier row"
                    dump.warnings.add(table: "log_entries", rowId: fix.logId,
                                      "uuid \(fix.uuid) also stands in \(other) with another timestamp (\(kept.timestampText) vs \(fix.timestampText)); the first is used")
                }
                // raw_* wins over the engine's smoothed output; otherwise keep the first copy.
                if fix.isRaw && !kept.isRaw {
                    kept.latitude = fix.latitude
                    kept.longitude = fix.longitude
                    kept.isRaw = true
                    kept.source = .logLocation
                }
                kept.logId = kept.logId ?? fix.logId
                kept.accuracy = kept.accuracy ?? fix.accuracy
                kept.speed = kept.speed ?? fix.speed
                kept.recordedOdometer = kept.recordedOdometer ?? fix.recordedOdometer
                fixes[existing] = kept
            }
        }

        mergeAdjustments(adjustLines, into: &fixes, stats: &stats)

        // The queue drains in time order, so the trace is usually sorted already: check in O(n) first.
        let ordered: (Fix, Fix) -> Bool = { a, b in
            if a.time != b.time { return a.time < b.time }
            return Fix.tieOrder(a, b)
        }
        if !zip(fixes.indices.dropLast(), fixes.indices.dropFirst()).allSatisfy({ !ordered(fixes[$1], fixes[$0]) }) {
            fixes.sort(by: ordered)
        }
        for i in fixes.indices {
            fixes[i].index = i
            if fixes[i].isRaw { stats.rawPositions += 1 } else { stats.smoothedOnly += 1 }
        }
        return Trace(fixes: fixes, geofences: geofences, stats: stats)
    }

    /// The usable `location`, `filter.reject` and `filter.adjust` lines, in log order, before
    /// they are merged with the queue.
    struct ParsedLines {
        enum Kind { case location, unmatchedLocation, reject, adjust }
        /// A parsed line, compact: a million of them are held while the queue is read, so optional
        /// numbers are NaN-encoded and ids are plain (a `Fix` is rebuilt at merge time).
        struct Item {
            let kind: Kind
            let isRaw: Bool
            let reason: RejectReason?
            let time: Double
            let latitude: Double
            let longitude: Double
            let accuracy: Double
            let speed: Double
            let odometer: Double
            let logId: Int64
            let uuid: String
            let timestampText: String

            init(kind: Kind, fix: Fix) {
                self.kind = kind
                isRaw = fix.isRaw
                reason = fix.recordedReason
                time = fix.time
                latitude = fix.latitude
                longitude = fix.longitude
                accuracy = fix.accuracy ?? .nan
                speed = fix.speed ?? .nan
                odometer = fix.recordedOdometer ?? .nan
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
                           isRaw: isRaw)
            }
        }
        var items: [Item] = []
        var locations = 0
        var rejects = 0
        var adjusts = 0
        var skipped = 0
    }

    /// Parses the fix lines of the log with the field scanner; unusable lines become located
    /// warnings on `dump`.
    static func readLogLines(_ dump: Dump) -> ParsedLines {
        var parsed = ParsedLines()
        var values: [ScannedValue] = []
        let scanner = logScanner
        // data is parsed here by the field scanner, which warns with its own located message.
        var query = LogQuery(events: ["location", "filter.reject", "filter.adjust"])
        query.validatesData = false
        dump.forEachLogEntry(query) { entry in
            guard var text = entry.dataText else {
                skip(dump, entry, "\(entry.event) line has no data", &parsed.skipped)
                return
            }
            let valid = text.withUTF8 { scanner.scan($0, into: &values) }
            guard valid else {
                skip(dump, entry, "\(entry.event) data is not a JSON object", &parsed.skipped)
                return
            }
            // The fix's own time; the line's ts is when it was logged (a fallback only).
            var time = entry.time
            var timestampText = entry.tsText
            if let ts = values[Slot.timestamp].string {
                guard let t = Timestamp.parse(ts) else {
                    skip(dump, entry, "\(entry.event) timestamp '\(ts)' is not an ISO-8601 time", &parsed.skipped)
                    return
                }
                time = t
                timestampText = ts
            }
            func coordinate(_ slot: Int, _ range: ClosedRange<Double>) -> Double? {
                guard let v = values[slot].double, range.contains(v) else { return nil }
                return v
            }
            let rawLat = coordinate(Slot.rawLatitude, -90...90)
            let rawLon = coordinate(Slot.rawLongitude, -180...180)
            let hasRaw = rawLat != nil && rawLon != nil && entry.event == "location"
            // A location line with raw_* only is still a usable fix (replay wants the raw position anyway).
            guard let latitude = coordinate(Slot.latitude, -90...90) ?? (hasRaw ? rawLat : nil),
                  let longitude = coordinate(Slot.longitude, -180...180) ?? (hasRaw ? rawLon : nil) else {
                skip(dump, entry, "\(entry.event) has no usable latitude/longitude", &parsed.skipped)
                return
            }
            let accuracy = values[Slot.accuracy].double.flatMap { $0 >= 0 ? $0 : nil }
            let speed = values[Slot.speed].double.flatMap { $0 >= 0 ? $0 : nil }
            switch entry.event {
            case "location":
                parsed.locations += 1
                let fix = Fix(time: time, latitude: rawLat ?? latitude, longitude: rawLon ?? longitude, accuracy: accuracy,
                              speed: speed, recordedOdometer: values[Slot.odometer].double, source: .logLocation,
                              logId: entry.rowId, uuid: values[Slot.uuid].string ?? "", timestampText: timestampText,
                              isRaw: hasRaw)
                if fix.uuid.isEmpty {
                    var uncounted = 0
                    skip(dump, entry, "location line has no uuid (cannot be matched to the queue)", &uncounted, counted: false)
                    parsed.items.append(.init(kind: .unmatchedLocation, fix: fix))
                } else {
                    parsed.items.append(.init(kind: .location, fix: fix))
                }
            case "filter.reject":
                parsed.rejects += 1
                parsed.items.append(.init(kind: .reject, fix: Fix(
                    time: time, latitude: latitude, longitude: longitude, accuracy: accuracy, speed: speed,
                    source: .logReject, logId: entry.rowId, timestampText: timestampText,
                    recordedReason: values[Slot.reason].string.flatMap(RejectReason.init(rawValue:)))))
            default:  // filter.adjust: latitude/longitude are the raw position before the move
                parsed.adjusts += 1
                parsed.items.append(.init(kind: .adjust, fix: Fix(
                    time: time, latitude: latitude, longitude: longitude, accuracy: accuracy, speed: speed,
                    source: .logAdjust, logId: entry.rowId, timestampText: timestampText)))
            }
        }
        return parsed
    }

    /// An adjusted fix is logged twice: the filter.adjust line (raw position, before the move) and
    /// the accepted fix (queue record / location line, adjusted position) with the same timestamp.
    /// Replaying both would feed the engine one fix twice, so they become one fix: the accepted
    /// fix's identity (uuid, accuracy, odometer) at the adjust line's raw position.
    static func mergeAdjustments(_ adjustLines: [Fix], into fixes: inout [Fix], stats: inout Trace.Stats) {
        guard !adjustLines.isEmpty else { return }
        var byMillis: [Int64: Int] = [:]
        for (i, fix) in fixes.enumerated() where fix.source == .queue || fix.source == .logLocation {
            byMillis[Int64((fix.time * 1000).rounded())] = byMillis[Int64((fix.time * 1000).rounded())] ?? i
        }
        for line in adjustLines {
            let key = Int64((line.time * 1000).rounded())
            if let i = byMillis[key] {
                byMillis[key] = nil
                fixes[i].latitude = line.latitude
                fixes[i].longitude = line.longitude
                fixes[i].isRaw = true
                fixes[i].source = .logAdjust
                fixes[i].accuracy = fixes[i].accuracy ?? line.accuracy
                fixes[i].speed = fixes[i].speed ?? line.speed
                if fixes[i].logId == nil { fixes[i].logId = line.logId }
                stats.adjustsMerged += 1
            } else {
                fixes.append(line)
            }
        }
    }

    private static func skip(_ dump: Dump, _ entry: LogEntry, _ message: String, _ skipped: inout Int,
                             counted: Bool = true) {
        dump.warnings.add(table: "log_entries", rowId: entry.rowId, message + (counted ? "; not replayed" : "; replayed without dedupe"))
        if counted { skipped += 1 }
    }
}
