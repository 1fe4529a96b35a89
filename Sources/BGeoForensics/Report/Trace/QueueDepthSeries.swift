/// Queue depth over time, from what the log says: `queue.insert` counts (the depth after the
/// insert) and `sync.deferred` pending counts set it; `queue.prune` counts (records evicted, not
/// the depth left) and successful uploads and poison drops (from the timeline's attempts) take
/// records off it. The last point is the queue at dump time.
public enum QueueDepthSeries {
    /// A log row about the depth: one that states it (`queue.insert` count, `sync.deferred`
    /// pending), or one that evicts records from it (`queue.prune` count).
    public struct Level: Sendable {
        let time: Double
        /// The depth stated, or for an eviction the number of records evicted.
        let depth: Int
        let logId: Int64
        /// True for `queue.prune`: `depth` records leave the queue.
        var evicts = false
    }

    /// One point of the series, with the log row that set it (nil for the dump-time point).
    public struct Point: Sendable, Equatable {
        public var time: Double
        public var depth: Int
        public var logId: Int64?
    }

    static let scanner = FieldScanner(paths: ["count", "pending"])

    /// Collects the stated depths from log entries, `data` picked by the field scanner (no JSON trees).
    public struct LevelReader {
        /// The log events that state a depth.
        public static let events: Set<String> = ["queue.insert", "queue.prune", "sync.deferred"]
        public private(set) var levels: [Level] = []
        private var values: [ScannedValue] = []

        public init() {}

        /// Takes `entry` if it states a depth (other entries are ignored).
        public mutating func add(_ entry: LogEntry) {
            guard LevelReader.events.contains(entry.event), var text = entry.dataText,
                  text.withUTF8({ scanner.scan($0, into: &values) }) else { return }
            let value = entry.event == "sync.deferred" ? values[1].double : values[0].double
            if let value, value.rounded() == value, abs(value) < 1e15, value >= 0 {
                levels.append(Level(time: entry.time, depth: Int(value), logId: entry.rowId, evicts: entry.event == "queue.prune"))
            }
        }
    }

    /// The series: stated depths, minus each eviction and each delivered or dropped batch, ending
    /// at the queue at dump time.
    public static func build(levels: [Level], attempts: [UploadAttempt], pendingAtDump: Int, dumpTime: Double?) -> [Point] {
        var sets: [(time: Double, depth: Int?, minus: Int, order: Int64)] = levels.map {
            $0.evicts ? ($0.time, nil, $0.depth, $0.logId) : ($0.time, $0.depth, 0, $0.logId)
        }
        guard levels.contains(where: { !$0.evicts }) else { return [] }
        for a in attempts where a.outcome == .success || a.outcome == .drop {
            let at = a.respondedAt ?? a.at
            sets.append((at, nil, a.count, a.responseLogId ?? a.logId))
        }
        sets.sort { $0.time != $1.time ? $0.time < $1.time : $0.order < $1.order }
        var out: [Point] = []
        out.reserveCapacity(sets.count + 1)
        var depth: Int?
        for s in sets {
            if let d = s.depth { depth = d } else if let known = depth { depth = max(0, known - s.minus) }
            // Before the first stated depth the queue's size is unknown: nothing is drawn.
            if let depth { out.append(Point(time: s.time, depth: depth, logId: s.order)) }
        }
        if let dumpTime { out.append(Point(time: max(dumpTime, out.last?.time ?? dumpTime), depth: pendingAtDump, logId: nil)) }
        return out
    }
}
