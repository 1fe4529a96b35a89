import BGeoReader
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

    /// The listed events' summaries, redacted and cached (`SecretScrubber`); made when the first
    /// is listed, as the tracker is, since the redactor may still be being learned.
    private var summaryScrubberStorage: SecretScrubber?
    var summaryScrubber: SecretScrubber {
        get { summaryScrubberStorage ?? SecretScrubber(redactor: redactor) }
        _modify {
            if summaryScrubberStorage == nil { summaryScrubberStorage = SecretScrubber(redactor: redactor) }
            yield &summaryScrubberStorage!
        }
    }

    private func makeTracker() -> UploadTracker {
        UploadTracker(rules: PolicyRules(policy: policy), redactor: redactor,
                      attemptLimit: options.attemptLimit, uuidLimit: options.uuidLimit)
    }
    var marks: [ContextMark] = []
    /// How many marks the gaps were built from (`buildGaps` releases them).
    var marksKept = 0
    /// The count at which `pruneMarks` next runs.
    lazy var nextMarkPrune = options.markPruneThreshold

    // Queue at the moment of the dump.
    var pendingRecords = 0
    var oldestPending: (time: Double, uuid: String)?
    var newestPending: Double?
    var pendingUuids = BoundedList<String>(limit: 20)
    var recordsInWindow = 0
    /// `location` log lines read.
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
    /// The texts of the frequent engine rows' events, built once each.
    var eventTexts = EventTextCache()

    /// Below this many log row ids the log is read on this thread alone (more threads cost more).
    var pipeMinimumRows: Int64 = 50_000
    /// Row ids per chunk of a piped log read.
    var pipeChunkRows: Int64 = 16_384
    /// What this thread read itself after a piped log read (`TimelineBuilder+PipedLog`); nil
    /// when the log was not piped.
    var pipedLogRest: PipedRead<TimelineLogItem>.Rest?

    /// Sees the log entries it asks for, in order, each after the timeline has handled it: lets
    /// a caller that needs other facts from the log (the report's trace lines and queue levels)
    /// share this scan instead of reading a million rows again.
    public var logObserver: LogObserver?

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

    /// Whether the queue scan reads only when each record was queued (`Dump.forEachQueueTiming`),
    /// which is when another reader may gather its facts (`queueFactsAfterLog`).
    static func readsQueueTimestamps(_ dump: Dump) -> Bool {
        dump.layout.queueTable != nil && dump.layout.queueSelection.hasTiming
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
        // The log is decoded on other connections while this thread reads the queue (nil: this
        // thread reads it all, as for a small log or when an observer wants its rows).
        let piped = logObserver == nil
            ? TimelineBuilder.pipedLog(on: dump, query: logQuery, reading: itemReading,
                                     minimumRows: pipeMinimumRows, chunkRows: pipeChunkRows) : nil
        if let queueFactsAfterLog {
            let queueWarnings = dump.warnings.count
            scanLog(piped)
            let logCoverage = coverage
            coverage = CoverageMap(threshold: options.gapThreshold)
            if let facts = queueFactsAfterLog() {
                absorbQueue(consume facts)
                queueFactsUsed = true
            } else {
                ScanRunner.readAsIfFirst(dump, before: queueWarnings) { scanQueue() }
            }
            // The queue's fixes first, then the log's: the order the two scans take otherwise.
            coverage.absorb(logCoverage)
        } else {
            scanQueue()
            scanLog(piped)
        }
        coverage.settle()
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
        // The whole list when it fits (the report's limit is none): not a copy of every gap.
        let gaps = allGaps.count <= options.gapLimit ? allGaps : Array(allGaps.prefix(options.gapLimit))
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
    /// Takes the queue's facts over; consumed, so its coverage is held once when the log's merges in.
    private func absorbQueue(_ facts: consuming QueueTimelineFacts) {
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
        let fast = dump.forEachQueueTiming { row, time in facts.add(row, time: time) }
        if !fast {
            // No timestamp column (LongPing): every record read, with its attempts and motion.
            let rules = PolicyRules(policy: policy)
            dump.forEachRecord(.fieldsOnly) { record in
                if let attempts = record.attempts {
                    queueAttempts.add(attempts: attempts, uuid: record.uuid, overLimit: rules.attemptsAreOverLimit(attempts))
                }
                guard facts.count(time: record.time, uuid: { record.uuid }), record.kind != .geofence else { return }
                facts.cover(CoverageMap.Edge(time: record.time, moving: FixMotion.moving(isMoving: record.isMoving, speed: record.speed),
                                             latitude: record.latitude, longitude: record.longitude))
            }
        }
        // Into an empty coverage: the queue's fixes come first (the log's, if read already, are
        // set aside and joined after them: `build`).
        absorbQueue(facts)
    }
}
