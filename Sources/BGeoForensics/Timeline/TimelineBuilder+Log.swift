import BGeoReader
import Foundation

/// The log pass: each row read once, oldest first, into the collectors the diagnosis reads.
extension TimelineBuilder {
    // MARK: log

    var logQuery: LogQuery { LogQuery(order: .oldestFirst, since: options.since, until: options.until) }

    /// Which rows the log pass reads from their cells: all it can, but those an observer that
    /// does not read cells (`LogObserver.seeCells`) wants as entries.
    var itemReading: TimelineLogItem.Reading {
        let observer = logObserver
        func fromCells(_ event: String) -> Bool { observer?.leavesToCells(event) ?? true }
        return TimelineLogItem.Reading(locations: fromCells("location"), queueInserts: fromCells("queue.insert"),
                                       engines: EngineRowKinds(EngineRowKind.allCases.filter { fromCells($0.event) }),
                                       drops: fromCells("queue.drop"), uuidsRead: uuidsRead)
    }

    /// The log pass: the items a piped read stood for first (`TimelineBuilder+PipedLog`), then
    /// the rows after them, or every row, from this thread's connection.
    func scanLog(_ piped: PipedRead<TimelineLogItem>?) {
        var after: Int64?
        if let piped {
            let rest = piped.forEach(standingInFor: dump) { apply($0) }
            pipedLogRest = rest
            guard case .readOn(let row) = rest else { return }
            after = row
        }
        // `location` lines (most of a log) need only their data's bytes, `queue.insert` lines
        // nothing, upload and engine rows a few fields: no LogEntry is built for them. An observer
        // that wants such rows and does not read cells (`LogObserver.seeCells`) gets them as
        // entries; upload rows it is never shown.
        let observer = logObserver
        let shown = observer?.shownCells
        let reading = itemReading
        let warnings = dump.warnings
        let quickRows: (LogRowView) -> Bool = { [self] row in
            guard let item = TimelineLogItem(row, reading, lines: &locationLines, warnings: warnings) else { return false }
            apply(item)
            // This handler checks the data of the rows it takes, a line's after it is handled (an
            // observer's parse may check it); an upload or engine row's was by its decode. An
            // observer is shown the row after the timeline has handled it.
            var dataChecked = !item.isLine
            if let shown, shown.shows(item) { dataChecked = shown.see(row, dataChecked) || dataChecked }
            if !dataChecked { row.checkData(warnings) }
            return true
        }
        dump.forEachLogEntry(logQuery, after: after, takenFromCells: quickRows, takerChecksData: true) { entry in
            apply(.entry(entry))
            if let observer, observer.wants(entry.event) { observer.see(entry) }
        }
    }

    /// Handles one row's item, in row order (whichever connection decoded it).
    func apply(_ item: TimelineLogItem) {
        switch item {
        case .location(let row, let edge):
            locationLineCount += 1
            coverage.add(edge)
            noteRow(at: row.time)
        case .queueInsert(let row):
            noteRow(at: row.time)
        case .upload(let kind, let row, let fields):
            noteRow(at: row.time)
            clockSteps.note(time: row.time, row: row.rowId)
            handleUpload(kind, row, fields)
        case .engine(let kind, let row, let fields):
            noteRow(at: row.time)
            clockSteps.note(time: row.time, row: row.rowId)
            handleEngine(kind, row, fields)
        case .drop(let row, let fields):
            noteRow(at: row.time)
            clockSteps.note(time: row.time, row: row.rowId)
            handleDrop(row, fields)
        case .entry(let entry):
            noteRow(at: entry.time)
            handle(entry)
        }
    }

    func noteRow(at time: Double) {
        logRows += 1
        if firstAt == nil { firstAt = time }
        lastAt = time
    }

    /// Every row built into an entry, in id order: enough rows to see the clock step back.
    func handle(_ entry: LogEntry) {
        clockSteps.note(time: entry.time, row: entry.rowId)
        switch entry.event {
        case "location":
            locationLineCount += 1
            addLocation(entry)
        case "queue.insert", "http.request", "http.response", "http.backoff":
            handleHot(entry)
        case "queue.drop":
            handleDrop(entry, DropRowFields(entry, kept: Evidence.defaultLimit))
        default:
            if let kind = EngineRowKind(event: entry.event) {
                handleEngine(kind, entry, entry.withData { EngineRowFields(kind, data: $0) })
            } else {
                handleEvent(entry)
            }
        }
    }

    func addLocation(_ entry: LogEntry) {
        guard var text = entry.dataText else {
            addLocation(time: entry.time, rowId: entry.rowId, data: nil)
            return
        }
        text.withUTF8 { addLocation(time: entry.time, rowId: entry.rowId, data: $0) }
    }

    /// A `location` line (logged at `time`, row `rowId`) from its `data` bytes.
    func addLocation(time lineTime: Double, rowId: Int64, data: UnsafeBufferPointer<UInt8>?) {
        coverage.add(locationLines.edge(lineTime: lineTime, rowId: rowId, data: data))
    }

    /// A number the row states that cannot be what it claims (a backoff of 1e19 s): a located
    /// warning; the value is still used and shown as the number it is.
    func warnOutOfRange(_ row: some LogRowStamp, _ event: String, _ value: Double?, _ field: String, unit: String) {
        guard let value, !(0...LogNumberRanges.limit).contains(value) else { return }
        dump.warnings.add(table: "log_entries", rowId: row.rowId,
                          "\(event) \(field) \(NumberText.describe(value))\(unit) is out of range (0 … 1e9\(unit))")
    }

    /// How many uuids an upload row's fields keep for the tracker. Read from the options, not the
    /// tracker: the tracker's getter hands over a copy of it (every array retained), per row.
    var uuidsRead: Int { UploadTracker.uuidsRead(uuidLimit: options.uuidLimit) }

    /// An `http.request`, `http.response` or `http.backoff` row, from its cells or from an entry.
    func handleUpload(_ kind: UploadRowKind, _ row: some LogRowStamp, _ data: UploadRowFields) {
        switch kind {
        case .request:
            tracker.request(row, data)
        case .response:
            tracker.response(row, data, authorizationConfigured: authorizationConfigured)
        case .backoff:
            warnOutOfRange(row, kind.event, data.delay, "delay_s", unit: " s")
            warnOutOfRange(row, kind.event, data.failuresValue, "failures", unit: "")
            tracker.backoff(row, data, authorizationConfigured: authorizationConfigured)
        }
    }

    /// Frequent rows: handled without building more than they need (`queue.insert` needs nothing).
    func handleHot(_ entry: LogEntry) {
        if let kind = UploadRowKind(event: entry.event) {
            handleUpload(kind, entry, UploadRowFields(entry, uuidLimit: uuidsRead))
        }
    }

    /// A `queue.drop` row, from its cells or from an entry: read by a field scan, a drop may name
    /// a million uuids (`DropRowFields`).
    func handleDrop(_ row: some LogRowStamp, _ fields: DropRowFields) {
        tracker.drop(row, fields, authorizationConfigured: authorizationConfigured)
        let uuids = fields.uuids, uuidCount = fields.uuidCount
        let status = fields.status
        add(.poisonDrop, row,
            (fields.isObject ? "dropped \(uuidCount) poison record\(uuidCount == 1 ? "" : "s")" : "dropped poison " + DropRowFields.unreadRecords)
                + (status.map { " after status \($0)" } ?? "")
                + (uuids.isEmpty ? "" : ": " + uuids.prefix(5).joined(separator: ", ") + (uuidCount > 5 ? " …" : "")),
            key: "drop\u{1}\(row.rowId)")
    }

    /// A frequent engine row (`EngineRowKind`), from its cells or from an entry.
    func handleEngine(_ kind: EngineRowKind, _ row: some LogRowStamp, _ data: EngineRowFields) {
        switch kind {
        case .heartbeat:
            add(.heartbeat, row, eventTexts.texts(.init(kind: .heartbeat, flag: false, detail: nil)) { "heartbeat" })
            mark(.heartbeat, row, nil)
        case .connectivity:
            connected = data.connected
            transport = data.transport
            offline.note(connected: data.connected, at: row.time, row: row.rowId)
            let offline = data.connected == false
            let texts = eventTexts.texts(.init(kind: .connectivity, flag: offline, detail: offline ? nil : data.transport)) {
                offline ? "offline" : "online" + (data.transport.map { " via \($0)" } ?? "")
            }
            add(.connectivity, row, texts)
            mark(.connectivity, row, texts.summary)
        case .filterReject, .filterAdjust:
            let adjusted = kind == .filterAdjust
            let reason = data.reason ?? (adjusted ? "teleport" : "unknown")
            add(.filter, row, eventTexts.texts(.init(kind: .filter, flag: adjusted, detail: reason)) {
                "fix \(adjusted ? "adjusted" : "rejected") by the filter (\(reason))"
            })
        case .refreshRequest:
            tracker.refreshRequest(row)
            add(.refresh, row, "token refresh requested")
        case .refreshResult:
            let success = tracker.refreshResult(row, success: data.success, status: data.status)
            let summary = success == true ? "token refresh succeeded"
                : "token refresh failed" + (data.status.map { " (\($0))" } ?? "")
            if collector.events.last?.kind == .refresh, collector.events.last?.summary == "token refresh requested" {
                collector.completeLast(kind: .refresh, summary: summary)
            } else {
                add(.refresh, row, summary)
            }
        }
    }

    func handleEvent(_ entry: LogEntry) {
        // Only app lines and unknown events show their message: scrub it only for them.
        var message: String? { entry.message.map { SecretScrubber(redactor: redactor).scrub(body: $0) } }
        // Parsed only by the events that read more than a field or two (heartbeats read nothing).
        lazy var data = entry.data
        switch entry.event {
        case "session.start":
            let reason = data?["reason"]?.stringValue
            add(.session, entry, "session started" + (reason.map { " (\($0))" } ?? ""))
            mark(.sessionStart, entry, reason)
        case "session.relaunch":
            let reason = data?["reason"]?.stringValue
            add(.relaunch, entry, "app relaunched: the process had been killed" + (reason.map { " (\($0))" } ?? ""))
            relaunches.add(entry)
            mark(.relaunch, entry, reason)
        case "config":
            if let object = data?.objectValue {
                config = SDKConfig(object)
                refreshReadiness = RefreshContract.readiness(config, storedAuth: storedAuth)
                sawConfigLine = true
            }
            add(.config, entry, configSummary(config))
        case "motionchange":
            let state = (entry.message ?? data?["state"]?.stringValue ?? "?").uppercased()
            let confidence = UploadTracker.int(data?["confidence"])
            add(.motion, entry, "motion → \(state)" + (confidence.map { " (confidence \($0))" } ?? ""),
                key: "motion\u{1}" + state)
            mark(state == "STATIONARY" ? .motionStationary : .motionMoving, entry, nil)
        case "motion.stationary":
            add(.stationary, entry, "engine committed to stationary")
            mark(.stationary, entry, nil)
        case "wake.region.exit":
            add(.regionExit, entry, "stationary geofence exit woke the engine")
            mark(.regionExit, entry, nil)
        case "headless.dispatch":
            let name = data?["event"]?.stringValue ?? "event"
            add(.headless, entry, "headless dispatch: \(name) (app code not running)")
            mark(.headless, entry, name)
        case "queue.prune":
            let reason = data?["reason"]?.stringValue ?? "unknown"
            let count = UploadTracker.int(data?["count"]) ?? 0
            prunes[reason, default: Tally()].add(entry, records: count)
            add(.prune, entry, "queue pruned: \(count) record\(count == 1 ? "" : "s") evicted (\(reason))",
                key: "prune\u{1}" + reason)
        case "sync.deferred":
            let reason = data?["reason"]?.stringValue ?? "unknown"
            let pending = UploadTracker.int(data?["pending"])
            deferrals[reason, default: Tally()].add(entry, pending: pending)
            add(.deferral, entry, "upload deferred (\(reason))" + (pending.map { ", \($0) pending" } ?? ""),
                key: "deferral\u{1}" + reason)
        case "log.upload":
            let status = UploadTracker.int(data?["status"])
            let count = UploadTracker.int(data?["count"])
            if let status { lastLogUploadSucceeded = (200...299).contains(status) }
            if let status, !(200...299).contains(status), !(400...499).contains(status) || status == 429 {
                logUploadFailures.add(entry)
                logUploadStatuses[status, default: 0] += 1
            }
            add(.logUpload, entry, "log upload" + (count.map { ": \($0) rows" } ?? "") + (status.map { " → \($0)" } ?? ""),
                key: "logupload\u{1}" + (status.map { String($0 / 100) } ?? "?"))
        case "app":
            add(.app, entry, "app: " + (message ?? "") + (entry.dataText.map { " " + redacted($0) } ?? ""))
        default:
            // Unknown events are kept verbatim (redacted), never dropped.
            var text = entry.event
            if let message = message, !message.isEmpty { text += ": " + message }
            if let dataText = entry.dataText { text += " " + redacted(dataText) }
            add(.unknown, entry, text)
        }
    }

    func redacted(_ dataText: String) -> String {
        let clipped = dataText.count > 1000 ? String(dataText.prefix(1000)) + "…" : dataText
        if let value = try? JSONParser.parse(dataText) {
            let text = SecretScrubber(redactor: redactor).scrub(json: value).jsonText
            return text.count > 1000 ? String(text.prefix(1000)) + "…" : text
        }
        return SecretScrubber(redactor: redactor).scrub(body: clipped)
    }

    /// `add`, with texts built once (`EventTextCache`).
    func add(_ kind: TimelineEvent.Kind, _ row: some LogRowStamp, _ texts: EventTextCache.Texts) {
        add(kind, row, texts.summary, key: texts.collapseKey)
    }

    func add(_ kind: TimelineEvent.Kind, _ row: some LogRowStamp, _ summary: String, key: String? = nil) {
        let event = TimelineEvent(kind: kind, at: row.time, logId: row.rowId, summary: summary, collapseKey: key)
        // Summaries quote dump strings (reasons, event names): scrubbed once per listed entry; an
        // event that joins a run keeps that run's (already scrubbed) text, and does not fetch the
        // redactor at all. Listed summaries repeat too (a refresh request listed and folded into
        // the run before it, on every retry of a stranded engine): their redaction is cached.
        collector.add(event) { $0.summary = self.summaryScrubber.scrub(url: $0.summary) }
    }

    func mark(_ kind: GapContextEvent.Kind, _ row: some LogRowStamp, _ detail: String?) {
        // Runs of the same mark (headless dispatches, heartbeats) keep only their edges.
        if let last = marks.last, last.kind == kind, last.detail == detail, row.time - last.lastAt < 300 {
            marks[marks.count - 1].lastAt = row.time
            marks[marks.count - 1].lastLogId = row.rowId
            return
        }
        marks.append(ContextMark(kind: kind, at: row.time, logId: row.rowId, lastAt: row.time,
                                 lastLogId: row.rowId, detail: detail))
        if marks.count >= nextMarkPrune { pruneMarks() }
    }

    /// Keeps the marks flat in memory (issue 27: two kinds alternating beside every fix made two
    /// marks per fix). A mark is shown only in the context of a gap within `contextWindow` of it,
    /// and only motion marks decide a gap's motion state. So a mark of another kind whose window
    /// lies strictly inside one stretch the fixes read so far cover can never be shown — fixes are
    /// only added, stretches only grow — and is dropped. The newest mark stays: a run extends it.
    func pruneMarks() {
        let window = options.contextWindow
        // The coverage as settled so far: fixes still waiting to be merged (older than its newest
        // stretch) only keep a mark a little longer. Settling here would merge every stretch per
        // prune, however few fixes wait.
        let newest = marks.count - 1
        var kept = 0
        for index in marks.indices {
            let mark = marks[index]
            if index == newest || TimelineBuilder.isMotion(mark.kind)
                || !coverage.coversStrictly(from: mark.at - window, to: mark.at + window) {
                marks[kept] = mark
                kept += 1
            }
        }
        marks.removeLast(marks.count - kept)
        nextMarkPrune = max(options.markPruneThreshold, kept * 2)
    }

    func configSummary(_ config: SDKConfig) -> String {
        var parts: [String] = []
        if let url = config.string("url"), !url.isEmpty {
            parts.append("url " + SecretScrubber(redactor: redactor).scrub(body: url))
        } else {
            parts.append("no url (persist-only)")
        }
        if config.bool("batchSync") == true {
            parts.append("batchSync" + (config.int("maxBatchSize").map { " max \($0)" } ?? ""))
        }
        if let threshold = config.int("autoSyncThreshold"), threshold > 0 { parts.append("autoSyncThreshold \(threshold)") }
        if config.bool("autoSync") == false { parts.append("autoSync off") }
        if config.bool("disableAutoSyncOnCellular") == true { parts.append("no auto-sync on cellular") }
        parts.append(TimelineBuilder.describe(RefreshContract.readiness(config, storedAuth: storedAuth)))
        return "config applied: " + parts.joined(separator: ", ")
    }

    /// "token refresh configured", "no token refresh configured", "authorization without refreshUrl: no token refresh possible".
    static func describe(_ readiness: RefreshContract.Readiness) -> String {
        switch readiness {
        case .ready: return "token refresh configured"
        case .notConfigured: return "no token refresh configured"
        case .incomplete(let missing):
            return "authorization without " + missing.joined(separator: " or ") + ": no token refresh possible"
        }
    }
}
