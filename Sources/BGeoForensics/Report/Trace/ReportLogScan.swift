/// One pass over the log for what the report draws besides fixes: upload attempts (request →
/// response → backoff), queue depth over time, and the events that explain gaps. Used where the
/// timeline's richer analysis is not available, and for the queue-depth chart in any case.
public struct ReportLogScan: Sendable {
    public var attempts: [ReportAttempt] = []
    /// (time, depth) from `queue.insert` counts, `sync.deferred` pending, successful uploads and prunes.
    public var queueDepth: [(time: Double, depth: Int)] = []
    /// Events that explain gaps: (time, event, log row).
    public var contextEvents: [(time: Double, event: String, rowId: Int64)] = []
    /// `queue.drop` rows (poison batches).
    public var drops: [(time: Double, rowId: Int64, count: Int, status: Int?)] = []
    /// Failed `auth.refresh.result` rows.
    public var refreshFailures: [(time: Double, rowId: Int64, status: Int?)] = []

    static let contextNames: Set<String> = ["session.start", "session.relaunch", "motion.stationary", "motionchange",
                                            "connectivity", "wake.region.exit", "heartbeat"]

    public init() {}

    /// Scans `dump`'s log once. `classifier` and `authorizationConfigured` classify responses.
    public init(dump: Dump, classifier: ResponseClassifier, authorizationConfigured: Bool) {
        var open: Int?  // index of the attempt awaiting its response
        var depth: Int?
        let events = ["http.request", "http.response", "http.backoff", "queue.insert", "queue.prune", "queue.drop",
                      "sync.deferred", "auth.refresh.result"] + Array(ReportLogScan.contextNames)
        dump.forEachLogEntry(LogQuery(events: events)) { entry in
            if ReportLogScan.contextNames.contains(entry.event) {
                if entry.event != "heartbeat" || contextEvents.count < 100_000 {
                    contextEvents.append((entry.time, entry.event, entry.rowId))
                }
                return
            }
            let data = entry.data
            switch entry.event {
            case "http.request":
                let uuids = data?["uuids"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let count = data?["count"]?.intValue ?? uuids.count
                attempts.append(ReportAttempt(time: entry.time, logId: entry.rowId, count: count, status: nil,
                                              outcome: "pending", uuids: uuids))
                open = attempts.count - 1
            case "http.response":
                guard let index = open else { return }
                let status = data?["status"]?.intValue ?? 0
                attempts[index].status = status
                let outcome = classifier.classify(status: status, authorizationConfigured: authorizationConfigured)
                attempts[index].outcome = outcome.rawValue
                open = nil
                if outcome == .success || outcome == .drop, let d = depth {
                    depth = max(0, d - attempts[index].count)
                    queueDepth.append((entry.time, depth!))
                }
            case "http.backoff":
                if let last = attempts.indices.last, let delay = data?["delay_s"]?.doubleValue {
                    attempts[last].backoffDelay = delay
                }
            case "queue.insert", "queue.prune":
                if let count = data?["count"]?.intValue {
                    depth = count
                    queueDepth.append((entry.time, count))
                }
            case "sync.deferred":
                if let pending = data?["pending"]?.intValue {
                    depth = pending
                    queueDepth.append((entry.time, pending))
                }
            case "queue.drop":
                let count = data?["uuids"]?.arrayValue?.count ?? 0
                drops.append((entry.time, entry.rowId, count, data?["status"]?.intValue))
            case "auth.refresh.result":
                if data?["success"]?.boolValue == false {
                    refreshFailures.append((entry.time, entry.rowId, data?["status"]?.intValue))
                }
            default:
                break
            }
        }
    }

    /// Gaps between consecutive accepted fixes longer than `threshold` seconds, with the context
    /// events logged inside each.
    public func gaps(in trace: ReportTrace, threshold: Double) -> [ReportGap] {
        var gaps: [ReportGap] = []
        var previous: Double?
        for fix in trace.fixes where fix.decision != .rejected {
            if let previous, fix.time - previous > threshold { gaps.append(ReportGap(start: previous, end: fix.time)) }
            previous = fix.time
        }
        guard !gaps.isEmpty else { return gaps }
        // Context events are in log order (time order in practice); match each to its gap.
        for i in gaps.indices {
            let inside = contextEvents.filter { $0.time >= gaps[i].start && $0.time <= gaps[i].end && $0.event != "heartbeat" }
            var seen: [String] = []
            for e in inside where !seen.contains(e.event) { seen.append(e.event) }
            gaps[i].context = seen
        }
        return gaps
    }
}
