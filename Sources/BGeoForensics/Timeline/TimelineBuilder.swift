import Foundation

/// Builds a `Timeline` from a dump in one streaming pass over the queue and one over the log
/// (oldest first). Nothing per row is kept: fixes fold into a `CoverageMap`, upload rows into an
/// `UploadTracker`, engine events into a collapsing `EventCollector`, so memory stays bounded
/// on million-row logs.
public final class TimelineBuilder {
    public let dump: Dump
    public let options: TimelineOptions
    public let policy: UploadPolicy
    /// Learned beside the queue scan; the first text the timeline keeps waits for it.
    private let pendingRedactor: PendingRedactor
    var redactor: Redactor { pendingRedactor.redactor }

    // Config as recorded, and as it changes along the log.
    let recordedConfig: SDKConfig
    let configSource: ConfigSource
    var config: SDKConfig
    /// The engine's stored token pair (`state.auth`): a refresh token may live only there.
    let storedAuth: JSONObject?
    /// Whether the config in force lets the engine refresh a token, and what it lacks if not.
    var refreshReadiness: RefreshContract.Readiness
    /// A 401/403 is answered by a refresh only when the engine can refresh; otherwise it is a
    /// plain retry with backoff (the guide's "retry if no authorization is configured / the
    /// refresh itself fails"), so a missing refresh is the app's configuration, not the engine.
    var authorizationConfigured: Bool { refreshReadiness.canRefresh }
    var sawConfigLine = false

    var coverage: CoverageMap
    var collector: EventCollector
    /// Made when the log scan first needs it (it keeps the redactor, which may still be being
    /// learned). Not a `lazy var`: a class's lazy property is read out and written back around
    /// every mutation, so the tracker's arrays were never uniquely referenced and every append
    /// copied them (time per upload attempt grew with the attempts kept). `_modify` mutates the
    /// stored value in place.
    private var trackerStorage: UploadTracker?
    var tracker: UploadTracker {
        get { trackerStorage ?? makeTracker() }
        _modify {
            if trackerStorage == nil { trackerStorage = makeTracker() }
            yield &trackerStorage!
        }
    }

    private func makeTracker() -> UploadTracker {
        UploadTracker(rules: PolicyRules(policy: policy), redactor: redactor,
                      attemptLimit: options.attemptLimit, uuidLimit: options.uuidLimit)
    }
    var marks: [ContextMark] = []

    // Queue at the moment of the dump.
    var pendingRecords = 0
    var oldestPending: (time: Double, uuid: String)?
    var newestPending: Double?
    var pendingUuids = BoundedList<String>(limit: 20)
    var recordsInWindow = 0
    /// `location` log lines read (both halves of a split read).
    var locationLineCount = 0
    var offline = OfflinePeriods()
    var clockSteps = ClockSteps()
    var queueAttempts = QueueAttemptTally()

    // Log span.
    var logRows = 0
    var firstAt: Double?
    var lastAt: Double?

    // Engine events the diagnosis needs.
    struct Tally {
        var count = 0
        var records = 0
        var first: Double?
        var last: Double?
        var lastPending: Int?
        var rows = BoundedList<Int64>(limit: 20)

        mutating func add(_ entry: LogEntry, records: Int = 0, pending: Int? = nil) {
            count += 1
            self.records += records
            if first == nil { first = entry.time }
            last = entry.time
            if let pending { lastPending = pending }
            rows.append(entry.rowId)
        }
    }
    var prunes: [String: Tally] = [:]
    var deferrals: [String: Tally] = [:]
    var relaunches = Tally()
    var connected: Bool?
    var transport: String?
    var logUploadFailures = Tally()
    var logUploadStatuses: [Int: Int] = [:]
    var lastLogUploadSucceeded: Bool?

    var locationLines = LocationLineFolder()
    let responseScanner = FieldScanner(paths: ["status", "count", "ms", "response", "retry_after", "retryAfter"])
    let backoffScanner = FieldScanner(paths: ["failures", "delay_s", "next_attempt_at", "retry_after", "retryAfter"])
    var scanValues: [ScannedValue] = []

    /// Below this many log row ids the log is read in one pass (a second thread costs more).
    var splitMinimumRows: Int64 = 50_000
    /// 2 when the log's later half was read on a second connection (`SplitLogRead`), else 1.
    private(set) var logPasses = 1

    /// Sees every log entry the timeline reads, in order, after the timeline has: lets a caller
    /// that needs other facts from the log (the report's trace lines and queue levels) share
    /// this scan instead of reading a million rows again.
    public var logObserver: ((LogEntry) -> Void)?
    /// With a `logObserver`, sees the `location` rows instead of it, from their cells, after the
    /// timeline has: those rows (most of a log) then keep the fast path (no `LogEntry` built).
    /// Returns true when it checked the row's data itself (`LogRowView.checkData`, before any
    /// warning of its own): its parse validated the JSON, so the read does not check it again.
    var locationRowObserver: ((LogRowView) -> Bool)?

    /// Prepares a builder; `redactor` scrubs every text the timeline keeps (default: the dump's
    /// own `makeRedactor()`; pass `dump.makeRedactor(enabled: false)` only for `--show-secrets`).
    public convenience init(dump: Dump, options: TimelineOptions = TimelineOptions(), redactor: Redactor? = nil) {
        self.init(dump: dump, options: options, pendingRedactor: redactor.map { PendingRedactor(dump, resolved: $0) } ?? PendingRedactor(dump))
    }

    /// A builder whose redactor is still being learned (`PendingRedactor`): the queue is read
    /// meanwhile.
    public init(dump: Dump, options: TimelineOptions = TimelineOptions(), pendingRedactor: PendingRedactor) {
        self.dump = dump
        self.options = options
        self.pendingRedactor = pendingRedactor
        policy = options.policy ?? UploadPolicy.forFormat(dump.layout.format)
        let recorded = dump.recordedConfig()
        recordedConfig = recorded.config
        configSource = recorded.source
        config = recorded.config
        storedAuth = dump.engineState().auth
        refreshReadiness = RefreshContract.readiness(recorded.config, storedAuth: storedAuth)
        coverage = CoverageMap(threshold: options.gapThreshold)
        collector = EventCollector(limit: options.eventLimit)
    }

    /// Set by a reader that gathers the queue's facts itself (`QueueTimelineFacts`, with this
    /// timeline's threshold and window) while the log is read: called after the log scan, it waits
    /// for them; nil from it means they cannot stand for the timeline's own scan (a row warned or
    /// did not read), which is then made, its warnings placed before the log's, as if first.
    var queueFactsAfterLog: (() -> QueueTimelineFacts?)?
    /// Whether `queueFactsAfterLog` gave the queue's facts (the timeline did not scan the queue).
    private(set) var queueFactsUsed = false

    /// Whether the queue scan reads only the `timestamp` column (`Dump.forEachQueueFix`), which is
    /// when another reader may gather its facts (`queueFactsAfterLog`).
    static func readsQueueTimestamps(_ dump: Dump) -> Bool {
        dump.layout.queueTable != nil && dump.layout.hasTimestampColumn && dump.layout.queueColumns.contains("uuid")
    }

    /// Reads the dump and returns its diagnosed timeline.
    public func build() -> Timeline {
        read()
        let allGaps = buildGaps()
        let window = timelineWindow()
        // A window that holds nothing is not diagnosed: every rule would speak from absence.
        let facts = diagnosisFacts(gaps: allGaps)
        let findings = window?.isEmpty == true ? [] : FindingRules.diagnose(facts)
        var timeline = timeline(allGaps: allGaps, findings: findings)
        timeline.window = window
        timeline.history = facts.history
        return timeline
    }

    /// Reads the dump and returns what the finding rules see (each rule's tests start here).
    func readFacts() -> DiagnosisFacts {
        read()
        return diagnosisFacts(gaps: buildGaps())
    }

    /// The one pass over the queue and the log that every fact comes from.
    private func read() {
        // The log's later half is read on a second connection while this thread reads the queue
        // and the first half (nil: one pass, as for a small log or when an observer wants every entry).
        let split = logObserver == nil
            ? SplitLogRead.start(on: dump, query: logQuery, threshold: options.gapThreshold, minimumRows: splitMinimumRows) : nil
        if let queueFactsAfterLog {
            let queueWarnings = dump.warnings.count
            scanLog(split)
            let logCoverage = coverage
            coverage = CoverageMap(threshold: options.gapThreshold)
            if let facts = queueFactsAfterLog() {
                absorbQueue(facts)
                queueFactsUsed = true
            } else {
                let since = dump.warnings.count
                scanQueue()
                dump.warnings.moveWarnings(since: since, to: queueWarnings)
            }
            // The queue's fixes first, then the log's: the order the two scans take otherwise.
            coverage.absorb(logCoverage)
        } else {
            scanQueue()
            scanLog(split)
        }
        tracker.finish()
    }

    /// What the `--since` / `--until` window holds, beside the whole dump's span (nil: no window).
    private func timelineWindow() -> TimelineWindow? {
        guard options.since != nil || options.until != nil else { return nil }
        let log = dump.logBounds()
        let firsts = [log.first, oldestPending?.time].compactMap { $0 }
        let lasts = [log.last, newestPending].compactMap { $0 }
        return TimelineWindow(since: options.since, until: options.until, logRowsInside: logRows, recordsInside: recordsInWindow,
                              dumpFirst: firsts.min(), dumpLast: lasts.max())
    }

    private func timeline(allGaps: [TrackingGap], findings: [Finding]) -> Timeline {
        let gaps = Array(allGaps.prefix(options.gapLimit))
        let omittedGaps = allGaps.count - gaps.count
        var timeline = Timeline(
            dumpName: dump.displayName, format: dump.layout.format, policy: policy.engine,
            authorizationConfigured: RefreshContract.isConfigured(recordedConfig),
            tokenRefresh: TimelineBuilder.describe(RefreshContract.readiness(recordedConfig, storedAuth: storedAuth)),
            configSource: configSource.description, gapThreshold: options.gapThreshold,
            since: options.since, until: options.until, logRows: logRows, firstAt: firstAt, lastAt: lastAt,
            pendingRecords: pendingRecords, events: collector.events, attempts: tracker.attempts, gaps: gaps,
            findings: findings, omittedEvents: collector.omitted, omittedAttempts: tracker.omittedAttempts,
            omittedGaps: omittedGaps)
        timeline.inputs = dump.inputs  // last: hashed beside the scans
        timeline.sanitized = dump.sanitizationMarker()?.summary
        return timeline
    }

    // MARK: queue

    /// The queue's facts, gathered by this timeline's scan or another reader's, into an empty coverage.
    private func absorbQueue(_ facts: QueueTimelineFacts) {
        pendingRecords = facts.pendingRecords
        oldestPending = facts.oldestPending
        newestPending = facts.newestPending
        pendingUuids = facts.pendingUuids
        recordsInWindow = facts.recordsInWindow
        coverage = facts.coverage
    }

    private func scanQueue() {
        // Fast path: the timestamp column only; motion looked up later for gap edges.
        var facts = QueueTimelineFacts(threshold: options.gapThreshold, since: options.since, until: options.until)
        let fast = dump.forEachQueueFix { fix in facts.add(rowId: fix.rowId, time: fix.time, isGeofence: fix.isGeofence, uuid: fix.uuid) }
        if !fast {
            // No timestamp column (LongPing): every record read, with its attempts and motion.
            let rules = PolicyRules(policy: policy)
            dump.forEachRecord(.fieldsOnly) { record in
                if let attempts = record.attempts {
                    queueAttempts.add(attempts: attempts, uuid: record.uuid, overLimit: rules.attemptsAreOverLimit(attempts))
                }
                guard facts.count(time: record.time, uuid: { record.uuid }), record.kind != .geofence else { return }
                let moving = record.isMoving ?? record.speed.map { $0 > 1 }
                facts.cover(CoverageMap.Fix(time: record.time, moving: moving, latitude: record.latitude, longitude: record.longitude))
            }
        }
        // Into an empty coverage: the queue's fixes come first (the log's, if read already, are
        // set aside and joined after them: `build`).
        absorbQueue(facts)
    }

    // MARK: log

    private var logQuery: LogQuery { LogQuery(order: .oldestFirst, since: options.since, until: options.until) }

    private func scanLog(_ split: SplitLogRead?) {
        // `location` lines (most of a log) need only their data's bytes, `queue.insert` lines
        // nothing: no LogEntry is built for them, unless an observer wants every entry (and
        // not the location rows apart, from their cells).
        let quickRows: ((LogRowView) -> Bool)? = logObserver != nil && locationRowObserver == nil ? nil : { [self] row in
            // An observer sees every other row (the report reads queue depths from them); without
            // one, `queue.insert` rows need nothing (`handleHot` ignores them).
            // This handler checks the data of the rows it takes (folding them warns of nothing).
            guard let kind = locationLines.take(row, into: &coverage, queueInserts: logObserver == nil) else { return false }
            if kind == .location { locationLineCount += 1 }
            noteRow(at: row.time)
            let checked = kind == .location && locationRowObserver?(row) == true
            if !checked { row.checkData(dump.warnings) }
            return true
        }
        dump.forEachLogEntry(logQuery, continuing: split.map { split in { split.continuing(atRow: $0) } },
                             handledWithoutText: quickRows, handlerChecksData: true) { entry in
            noteRow(at: entry.time)
            handle(entry)
            logObserver?(entry)
        }
        guard let later = split?.finish() else { return }
        // The later half, as this pass would have gone on: its other rows handled in order, its
        // fixes joined to the coverage (which nothing reads before the scans end).
        logPasses = 2
        for entry in later.entries { handle(entry) }
        logRows += later.rows
        locationLineCount += later.locationLines
        if firstAt == nil { firstAt = later.firstAt }
        if let last = later.lastAt { lastAt = last }
        coverage.absorb(later.coverage)
    }

    private func noteRow(at time: Double) {
        logRows += 1
        if firstAt == nil { firstAt = time }
        lastAt = time
    }

    /// Every row but the location and queue.insert lines taken from their cells, in id order
    /// (both halves of a split read): enough rows to see the clock step back.
    private func handle(_ entry: LogEntry) {
        clockSteps.note(time: entry.time, row: entry.rowId)
        switch entry.event {
        case "location":
            locationLineCount += 1
            addLocation(entry)
        case "queue.insert", "http.request", "http.response", "http.backoff", "filter.reject", "filter.adjust":
            handleHot(entry)
        default:
            handleEvent(entry, entry.data)
        }
    }

    private func addLocation(_ entry: LogEntry) {
        guard var text = entry.dataText else {
            addLocation(time: entry.time, rowId: entry.rowId, data: nil)
            return
        }
        text.withUTF8 { addLocation(time: entry.time, rowId: entry.rowId, data: $0) }
    }

    /// A `location` line (logged at `time`, row `rowId`) from its `data` bytes.
    private func addLocation(time lineTime: Double, rowId: Int64, data: UnsafeBufferPointer<UInt8>?) {
        locationLines.add(lineTime: lineTime, rowId: rowId, data: data, to: &coverage)
    }

    /// The few scalar fields of a frequent row as a small object, without building the whole
    /// tree; falls back to a full parse when a wanted field is an object or array.
    private func quickData(_ entry: LogEntry, _ scanner: FieldScanner) -> JSONValue? {
        guard var text = entry.dataText else { return nil }
        guard text.withUTF8({ scanner.scan($0, into: &scanValues) }) else { return nil }
        var object = JSONObject()
        for (index, path) in scanner.paths.enumerated() {
            switch scanValues[index] {
            case .missing: continue
            case .null: object[path] = .null
            case .bool(let b): object[path] = .bool(b)
            case .string(let s): object[path] = .string(s)
            case .number(let d): object[path] = d.rounded() == d && abs(d) < 9e15 ? .int(Int64(d)) : .double(d)
            case .composite: return entry.data
            }
        }
        return .object(object)
    }

    /// A number the row states that cannot be what it claims (a backoff of 1e19 s): a located
    /// warning; the value is still used and shown as the number it is.
    private func warnOutOfRange(_ entry: LogEntry, _ data: JSONValue?, _ field: String, unit: String) {
        guard let value = data?[field].flatMap(UploadTracker.double), !(0...LogNumberRanges.limit).contains(value) else { return }
        dump.warnings.add(table: "log_entries", rowId: entry.rowId,
                          "\(entry.event) \(field) \(NumberText.describe(value))\(unit) is out of range (0 … 1e9\(unit))")
    }

    /// Frequent rows: handled without building more than they need.
    private func handleHot(_ entry: LogEntry) {
        switch entry.event {
        case "queue.insert":
            return
        case "http.request":
            tracker.request(entry, entry.data)
        case "http.response":
            tracker.response(entry, quickData(entry, responseScanner), authorizationConfigured: authorizationConfigured)
        case "http.backoff":
            let data = quickData(entry, backoffScanner)
            warnOutOfRange(entry, data, "delay_s", unit: " s")
            warnOutOfRange(entry, data, "failures", unit: "")
            tracker.backoff(entry, data, authorizationConfigured: authorizationConfigured)
        default:
            let data = entry.data
            let reason = data?["reason"]?.stringValue ?? (entry.event == "filter.adjust" ? "teleport" : "unknown")
            let verb = entry.event == "filter.adjust" ? "adjusted" : "rejected"
            add(.filter, entry, "fix \(verb) by the filter (\(reason))")
        }
    }

    private func handleEvent(_ entry: LogEntry, _ data: JSONValue?) {
        // Only app lines and unknown events show their message: scrub it only for them.
        var message: String? { entry.message.map { SecretScrubber(redactor: redactor).scrub(body: $0) } }
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
        case "heartbeat":
            add(.heartbeat, entry, "heartbeat")
            mark(.heartbeat, entry, nil)
        case "auth.refresh":
            tracker.refreshRequest(entry)
            add(.refresh, entry, "token refresh requested")
        case "auth.refresh.result":
            let before = tracker.stats.refreshSuccesses + tracker.stats.refreshFailures
            tracker.refreshResult(entry, data)
            let success = tracker.stats.refreshSuccesses + tracker.stats.refreshFailures > before
                ? tracker.stats.lastRefreshSucceeded : nil
            let status = UploadTracker.int(data?["status"])
            let summary = success == true ? "token refresh succeeded"
                : "token refresh failed" + (status.map { " (\($0))" } ?? "")
            if collector.events.last?.kind == .refresh, collector.events.last?.summary == "token refresh requested" {
                collector.completeLast(kind: .refresh, summary: summary)
            } else {
                add(.refresh, entry, summary)
            }
        case "queue.drop":
            tracker.drop(entry, data, authorizationConfigured: authorizationConfigured)
            let uuids = UploadTracker.strings(data?["uuids"])
            let status = UploadTracker.int(data?["status"])
            add(.poisonDrop, entry,
                "dropped \(uuids.count) poison record\(uuids.count == 1 ? "" : "s")"
                    + (status.map { " after status \($0)" } ?? "") + ": " + uuids.prefix(5).joined(separator: ", ")
                    + (uuids.count > 5 ? " …" : ""),
                key: "drop\u{1}\(entry.rowId)")
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
        case "connectivity":
            let isConnected = data?["connected"]?.boolValue
            let via = data?["transport"]?.stringValue
            connected = isConnected
            transport = via
            offline.note(connected: isConnected, at: entry.time, row: entry.rowId)
            let summary = isConnected == false ? "offline" : "online" + (via.map { " via \($0)" } ?? "")
            add(.connectivity, entry, summary)
            mark(.connectivity, entry, summary)
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

    private func redacted(_ dataText: String) -> String {
        let clipped = dataText.count > 1000 ? String(dataText.prefix(1000)) + "…" : dataText
        if let value = try? JSONParser.parse(dataText) {
            let text = SecretScrubber(redactor: redactor).scrub(json: value).jsonText
            return text.count > 1000 ? String(text.prefix(1000)) + "…" : text
        }
        return SecretScrubber(redactor: redactor).scrub(body: clipped)
    }

    private func add(_ kind: TimelineEvent.Kind, _ entry: LogEntry, _ summary: String, key: String? = nil) {
        var event = TimelineEvent(kind: kind, at: entry.time, logId: entry.rowId, summary: summary, collapseKey: key)
        // Summaries quote dump strings (reasons, event names): scrubbed once per new entry; an
        // event that joins the previous run keeps that run's (already scrubbed) text.
        if collector.events.last?.collapseKey != event.collapseKey { event.summary = redactor.redact(text: summary) }
        collector.add(event)
    }

    private func mark(_ kind: GapContextEvent.Kind, _ entry: LogEntry, _ detail: String?) {
        // Runs of the same mark (headless dispatches, heartbeats) keep only their edges.
        if let last = marks.last, last.kind == kind, last.detail == detail, entry.time - last.lastAt < 300 {
            marks[marks.count - 1].lastAt = entry.time
            marks[marks.count - 1].lastLogId = entry.rowId
            return
        }
        marks.append(ContextMark(kind: kind, at: entry.time, logId: entry.rowId, lastAt: entry.time,
                                 lastLogId: entry.rowId, detail: detail))
    }

    private func configSummary(_ config: SDKConfig) -> String {
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

/// A context event remembered for gap explanations (runs collapsed to their edges).
struct ContextMark: Sendable {
    var kind: GapContextEvent.Kind
    var at: Double
    var logId: Int64
    var lastAt: Double
    var lastLogId: Int64
    var detail: String?
}

/// What the numbers of log rows can plausibly hold.
enum LogNumberRanges {
    /// A backoff of more than ~31 years, or more failures than that many seconds, is a broken number.
    static let limit = 1e9
}
