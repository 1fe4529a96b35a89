import BGeoReader
import Foundation
import BGeoSQLite

/// The complete trace's two streams as they are read: the queue's location records (as fixes)
/// and geofence records, and the log's fix lines, each spooled into time order on disk.
extension TraceBuilder {
    /// The queue's half, spooled.
    struct QueueSpools {
        let fixes: SortedSpool<Fix>
        let geofences: SortedSpool<ReportGeofence>
        var geofenceFacts = QueueFacts()
        /// The timeline's facts of every row read, when asked for (`read(timelineFacts:)`).
        var timelineFacts: QueueTimelineFacts?

        /// `feed`: the fixes' live run, for a `LivePass` (see `storedTrace`).
        init(folder: WorkFolder, windows: TraceWindows, feed: LiveFeed? = nil) {
            fixes = SortedSpool(folder: folder, stem: "queue", window: windows.reorder, feed: feed)
            geofences = SortedSpool(folder: folder, stem: "geofences", window: windows.reorder)
        }

        /// Spools every record of the queue (geofences apart), in row order; with `timelineFacts`,
        /// gathers the timeline's facts of every row read into it too.
        static func read(_ dump: Dump, windows: TraceWindows, feed: LiveFeed? = nil,
                         timelineFacts: QueueTimelineFacts? = nil) -> QueueSpools {
            var spools = QueueSpools(folder: dump.workFiles, windows: windows, feed: feed)
            var facts = timelineFacts ?? QueueTimelineFacts(threshold: 0, since: nil, until: nil)
            // As `Dump.forEachQueueTiming` reads each row for the timeline.
            let everyRow: ((QueueRowCells) -> Void)? = timelineFacts == nil ? nil : { row in facts.add(row, time: row.queuedTime) }
            // The rows and warnings of `forEachRecord(.fieldsOnly)`; a location row's fix is made
            // from the row itself, without the record's other texts.
            dump.forEachDecodedRecord(everyRow: everyRow) { row in
                if row.kind == .geofence {
                    let record = row.record(includeText: false)
                    spools.geofenceFacts.add(time: record.time, rowId: record.rowId, uuid: record.uuid, geofence: true)
                    spools.geofences.add(ReportGeofence(record: record))
                    return
                }
                spools.fixes.add(TraceBuilder.queueFix(row))
            }
            if timelineFacts != nil { spools.timelineFacts = facts }
            return spools
        }
    }

    /// A queued location record as a fix (smoothed position, its queue row).
    static func queueFix(_ row: DecodedQueueRow) -> Fix {
        Fix(time: row.time, latitude: row.decoded.latitude, longitude: row.decoded.longitude, accuracy: row.accuracy,
            speed: row.speed, recordedOdometer: row.odometer, source: .queue, rowId: row.rowId, uuid: row.uuid,
            timestampText: row.timestampText, isRaw: false, heading: row.heading, altitude: row.altitude,
            isMoving: row.isMoving)
    }

    /// The log's half: fix lines parsed (with their counts) and spooled.
    struct LineSpool {
        var parsed = ParsedLines()
        let spool: SortedSpool<Fix>
        /// The redactor's learning, when the read did it too (`PendingRedactor.foldedLearning`).
        var secrets: SecretRowLearning?

        init(folder: WorkFolder, windows: TraceWindows, feed: LiveFeed? = nil) {
            spool = SortedSpool(folder: folder, stem: "lines", window: windows.reorder, feed: feed)
        }

        /// Parses one log row if it is a fix line (other rows are ignored).
        mutating func add(_ row: some LogLineFields, warnings: WarningLog) {
            guard ParsedLines.events.contains(row.event) else { return }
            if let item = parsed.parse(row, warnings: warnings) { spool.add(item) }
        }

        /// `add`, for a read that validates the log's data (`LogQuery.validatesData`) and leaves
        /// this row's check to the parse (`LogObserver.seeCells`): a line the field
        /// scanner reads is valid JSON; one it cannot is checked before it is skipped, so the
        /// warnings are the read's own, in its order. Returns true: the row's data was checked.
        mutating func addChecking(_ row: LogRowView, warnings: WarningLog) -> Bool {
            guard ParsedLines.events.contains(row.event) else {
                row.checkData(warnings)
                return true
            }
            if let item = parsed.parse(row, warnings: warnings, checksData: true) { spool.add(item) }
            return true
        }

        /// Spools every fix line of the log; with `secrets`, learns the redactor's secrets from the
        /// rows that state them on the same read (the log is then read once, not twice).
        static func read(_ dump: Dump, windows: TraceWindows, feed: LiveFeed? = nil, secrets: SecretRowLearning? = nil) -> LineSpool {
            var lines = LineSpool(folder: dump.workFiles, windows: windows, feed: feed)
            lines.secrets = secrets
            var query = LogQuery(events: ParsedLines.eventList.sorted())
            if secrets != nil { SecretRowLearning.addRows(to: &query) }
            query.validatesData = false
            // Each line is parsed from its row's cells: no LogEntry (four texts) is built for it. A
            // row the learning reads is checked as its own scan would, and built into one unless
            // it is a URL record (read from its cells too).
            let learns = secrets != nil
            dump.forEachLogEntry(query, takenFromCells: { row in
                if learns, SecretRowLearning.reads(row) {
                    row.checkData(dump.warnings)
                    return lines.secrets?.learnFromCells(row) ?? false
                }
                lines.add(row, warnings: dump.warnings)
                return true
            }) { entry in lines.secrets?.see(entry) }
            lines.secrets?.finish(on: dump)
            return lines
        }
    }

    /// The complete trace (replay-semantics.md, "Which fixes") built in bounded memory and stored
    /// in the private working folder: the same fixes, in the same order, with the same counts and
    /// warnings as `completeTrace(dump:)`, which holds them all in memory.
    public static func storedTrace(dump: Dump, windows: TraceWindows = .standard) throws -> CompleteTrace {
        try storedTrace(dump: dump, windows: windows, following: nil)
    }

    /// `storedTrace`, with `following` a pass that follows the trace as the live assembly writes
    /// it (`LiveSummary`).
    /// `secrets`: a redactor that learns from this read of the log (`PendingRedactor.init(_:foldedWith:)`).
    package static func storedTrace(dump: Dump, windows: TraceWindows = .standard, following: LiveFeed?,
                                    secrets: PendingRedactor? = nil) throws -> CompleteTrace {
        // As in memory: the log's lines on a second connection and thread, its warnings after the
        // queue's. A third thread assembles the two spools' runs as they are written.
        let live = liveAssembly(dump: dump, windows: windows, output: following)
        let logFeed = live.feeds.log
        let learning = secrets?.foldedLearning()
        let lineScan = ScanRunner.beside(dump) { LineSpool.read($0, windows: windows, feed: logFeed, secrets: learning) }
        let queue = QueueSpools.read(dump, windows: windows, feed: live.feeds.queue)
        let lines = lineScan.value()
        // Its warnings are in the dump's log now: the learning's move to where it began.
        if let learned = lines.secrets { secrets?.fold(learned) }
        return try assemble(dump: dump, queue: queue, lines: lines, windows: windows, live: live.pass)
    }

    /// The feeds for the spools (`QueueSpools`, `LineSpool`) and the live pass following them;
    /// `output` follows the trace the pass writes (see `TraceAssembler.LivePass`).
    static func liveAssembly(dump: Dump, windows: TraceWindows, output: LiveFeed? = nil)
        -> (feeds: (queue: LiveFeed, log: LiveFeed), pass: TraceAssembler<CompleteTraceSemantics>.LivePass) {
        let feeds = (queue: LiveFeed(), log: LiveFeed())
        let assembler = TraceAssembler(CompleteTraceSemantics(folder: dump.workFiles), windows: windows, folder: dump.workFiles)
        return (feeds, TraceAssembler.LivePass(assembler, queue: feeds.queue, log: feeds.log, output: output))
    }

    /// Assembles the spooled halves (from the live pass's first run when given, made with the
    /// spools' feeds); conflict warnings go to the dump's after what is there.
    static func assemble(dump: Dump, queue: QueueSpools, lines: LineSpool, windows: TraceWindows,
                         live: TraceAssembler<CompleteTraceSemantics>.LivePass? = nil) throws -> CompleteTrace {
        let warnings = dump.warnings, folder = dump.workFiles
        let queueFixes: SortedSource<Fix>, geofences: SortedSource<ReportGeofence>, lineSource: SortedSource<Fix>
        do {
            queueFixes = try queue.fixes.finish()
            geofences = try queue.geofences.finish()
            lineSource = try lines.spool.finish()
        } catch {
            live?.cancel()
            throw error
        }
        let result: TraceAssembler<CompleteTraceSemantics>.Result
        let semantics: CompleteTraceSemantics
        if let live {
            result = try live.assemble(queue: queueFixes, log: lineSource)
            semantics = live.semantics
        } else {
            let assembler = TraceAssembler(CompleteTraceSemantics(folder: folder), windows: windows, folder: folder)
            result = try assembler.assemble(queue: queueFixes, log: lineSource)
            semantics = assembler.semantics
        }
        var stats = semantics.stats
        stats.queueLocations = queue.fixes.count
        stats.logLocations = lines.parsed.locations
        stats.logRejects = lines.parsed.rejects
        stats.logAdjusts = lines.parsed.adjusts
        stats.skippedLines = lines.parsed.skipped
        // In memory the conflicts are met line by line, in log order.
        try semantics.warnings?.report(to: warnings)
        var facts = semantics.queueFacts
        facts.absorb(queue.geofenceFacts)
        let stored = StoredTrace<Fix>(tape: result.tape, count: result.count, geofences: geofences,
                                      geofenceCount: queue.geofences.count)
        let trace = CompleteTrace(dump: dump, fixes: stored, stats: stats, queue: facts, assemblyRuns: result.runs,
                                  spilledRecords: queue.fixes.spilled + queue.geofences.spilled + lines.spool.spilled,
                                  assembledLive: result.live, spilledMilliseconds: result.spilledMilliseconds)
        return trace
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
