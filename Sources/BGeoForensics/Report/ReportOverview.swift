import BGeoReader

/// The dump-level facts a report header shows — what `DumpSummary` holds — gathered from the
/// passes the report makes anyway (the complete trace, the timeline) plus a few indexed queries,
/// instead of another full decode of both tables: on a million-row dump that pass alone costs
/// seconds.
public struct ReportOverview: Sendable {
    public struct Queue: Sendable {
        /// Rows in the queue table (readable or not).
        public var count = 0
        public var locations = 0
        public var geofences = 0
        public var unreadable = 0
        public var oldestTime: Double?
        public var newestTime: Double?
        /// uuid of the oldest pending record (lowest row id that decodes).
        public var headUUID: String?
    }

    public struct Log: Sendable {
        public var count = 0
        public var firstTime: Double?
        public var lastTime: Double?
    }

    public var queue: Queue
    public var log: Log
    /// State as JSON, redacted (as `inspect` shows it).
    public var state: JSONValue
    public var configSource: ConfigSource
    /// The dump's warnings once the report's reads are done (set by `ReportBuilder` then).
    public var warnings = WarningList.none

    /// The newest time anywhere in the dump.
    public var newestTime: Double? { [queue.newestTime, log.lastTime].compactMap { $0 }.max() }

    init(dump: Dump, queue facts: QueueFacts, timeline: Timeline, redactor: Redactor) {
        var q = Queue()
        if let count = dump.queueRowCount() { q.count = count }
        q.locations = facts.locations
        q.geofences = facts.geofences
        q.oldestTime = facts.oldestTime
        q.newestTime = facts.newestTime
        q.headUUID = facts.headUUID
        q.unreadable = max(0, q.count - q.locations - q.geofences)
        queue = q
        log = Log(count: timeline.logRows, firstTime: timeline.firstAt, lastTime: timeline.lastAt)
        let recorded = dump.recordedConfig()
        configSource = recorded.source
        state = DumpSummary.stateJSON(dump.engineState(), config: recorded.config, source: recorded.source, redactor: redactor,
                                      reference: [q.newestTime, timeline.lastAt].compactMap { $0 }.max())
    }
}
