import Foundation

/// The complete trace's two streams as they are read: the queue's location records (as fixes)
/// and geofence records, and the log's fix lines, each spooled into time order on disk.
extension TraceBuilder {
    /// The queue's half, spooled.
    struct QueueSpools {
        let fixes: SortedSpool<Fix>
        let geofences: SortedSpool<ReportGeofence>
        var geofenceFacts = QueueFacts()

        init(folder: WorkFolder, windows: TraceWindows) {
            fixes = SortedSpool(folder: folder, stem: "queue", window: windows.reorder)
            geofences = SortedSpool(folder: folder, stem: "geofences", window: windows.reorder)
        }

        /// Spools every record of the queue (geofences apart), in row order.
        static func read(_ dump: Dump, windows: TraceWindows) -> QueueSpools {
            var spools = QueueSpools(folder: dump.workFiles, windows: windows)
            dump.forEachRecord(.fieldsOnly) { record in
                if record.kind == .geofence {
                    spools.geofenceFacts.add(time: record.time, rowId: record.rowId, uuid: record.uuid, geofence: true)
                    spools.geofences.add(ReportGeofence(record: record))
                    return
                }
                spools.fixes.add(TraceBuilder.queueFix(record))
            }
            return spools
        }
    }

    /// A queued location record as a fix (smoothed position, its queue row).
    static func queueFix(_ record: QueueRecord) -> Fix {
        Fix(time: record.time, latitude: record.latitude, longitude: record.longitude, accuracy: record.accuracy,
            speed: record.speed, recordedOdometer: record.odometer, source: .queue, rowId: record.rowId, uuid: record.uuid,
            timestampText: record.timestampText, isRaw: false, heading: record.heading, altitude: record.altitude,
            isMoving: record.isMoving)
    }

    /// The log's half: fix lines parsed (with their counts) and spooled.
    struct LineSpool {
        var parsed = ParsedLines()
        let spool: SortedSpool<ParsedLines.Item>

        init(folder: WorkFolder, windows: TraceWindows) {
            spool = SortedSpool(folder: folder, stem: "lines", window: windows.reorder)
        }

        /// Parses one log entry if it is a fix line (other entries are ignored).
        mutating func add(_ entry: LogEntry, warnings: WarningLog) {
            guard ParsedLines.events.contains(entry.event) else { return }
            if let item = parsed.parse(entry, warnings: warnings) { spool.add(item) }
        }

        /// Spools every fix line of the log.
        static func read(_ dump: Dump, windows: TraceWindows) -> LineSpool {
            var lines = LineSpool(folder: dump.workFiles, windows: windows)
            var query = LogQuery(events: Array(ParsedLines.events).sorted())
            query.validatesData = false
            dump.forEachLogEntry(query) { entry in lines.add(entry, warnings: dump.warnings) }
            return lines
        }
    }

    /// The complete trace (replay-semantics.md, "Which fixes") built in bounded memory and stored
    /// in the private working folder: the same fixes, in the same order, with the same counts and
    /// warnings as `completeTrace(dump:)`, which holds them all in memory.
    public static func storedTrace(dump: Dump, windows: TraceWindows = .standard) throws -> CompleteTrace {
        // As in memory: the log's lines on a second connection and thread, its warnings after the queue's.
        let lineScan = SecondConnectionScan.start(on: dump) { LineSpool.read($0, windows: windows) }
        let queue = QueueSpools.read(dump, windows: windows)
        let lines = lineScan?.finish(into: dump.warnings) ?? LineSpool.read(dump, windows: windows)
        return try assemble(dump: dump, queue: queue, lines: lines, windows: windows)
    }

    /// Assembles the spooled halves; conflict warnings go to the dump's after what is there.
    static func assemble(dump: Dump, queue: QueueSpools, lines: LineSpool, windows: TraceWindows) throws -> CompleteTrace {
        let warnings = dump.warnings, folder = dump.workFiles
        let queueFixes = try queue.fixes.finish()
        let geofences = try queue.geofences.finish()
        let lineSource = try lines.spool.finish()
        var semantics = CompleteTraceSemantics()
        semantics.stats.queueLocations = queue.fixes.count
        let assembler = TraceAssembler(semantics, windows: windows, folder: folder)
        let result = try assembler.assemble(queue: queueFixes, log: lineSource)
        semantics = assembler.semantics
        var stats = semantics.stats
        stats.logLocations = lines.parsed.locations
        stats.logRejects = lines.parsed.rejects
        stats.logAdjusts = lines.parsed.adjusts
        stats.skippedLines = lines.parsed.skipped
        // In memory the conflicts are met line by line, in log order.
        for warning in semantics.warnings.enumerated().sorted(by: { a, b in
            (a.element.rowId ?? 0, a.offset) < (b.element.rowId ?? 0, b.offset)
        }) {
            warnings.add(warning.element)
        }
        var facts = semantics.queueFacts
        facts.absorb(queue.geofenceFacts)
        let stored = StoredTrace<Fix>(tape: result.tape, count: result.count, geofences: geofences,
                                      geofenceCount: queue.geofences.count)
        return CompleteTrace(dump: dump, fixes: stored, stats: stats, queue: facts, assemblyRuns: result.runs,
                             spilledRecords: queue.fixes.spilled + queue.geofences.spilled + lines.spool.spilled)
    }
}

extension QueueFacts {
    /// Adds another part's facts (the geofence records' to the fixes').
    mutating func absorb(_ other: QueueFacts) {
        locations += other.locations
        geofences += other.geofences
        if let t = other.oldestTime { oldestTime = min(oldestTime ?? t, t) }
        if let t = other.newestTime { newestTime = max(newestTime ?? t, t) }
        if let row = other.headRow, headRow.map({ row < $0 }) ?? true {
            headRow = row
            headUUID = other.headUUID
        }
    }
}
