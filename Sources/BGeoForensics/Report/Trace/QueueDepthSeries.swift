/// Queue depth over time, from what the log says: `queue.insert` / `queue.prune` counts and
/// `sync.deferred` pending counts set it; successful uploads and poison drops (from the
/// timeline's attempts) take their batch off it. The last point is the queue at dump time.
public enum QueueDepthSeries {
    /// A depth the log states outright (`queue.insert`/`queue.prune` count, `sync.deferred` pending).
    public struct Level: Sendable {
        let time: Double
        let depth: Int
        let logId: Int64
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
            if let value, value.rounded() == value, abs(value) < 1e15 {
                levels.append(Level(time: entry.time, depth: Int(value), logId: entry.rowId))
            }
        }
    }

    /// The series: stated depths, minus each delivered or dropped batch, ending at the queue at dump time.
    public static func build(levels: [Level], attempts: [UploadAttempt], pendingAtDump: Int, dumpTime: Double?) -> [(time: Double, depth: Int)] {
        var sets: [(time: Double, depth: Int?, minus: Int, order: Int64)] = levels.map { ($0.time, $0.depth, 0, $0.logId) }
        guard !sets.isEmpty else { return [] }
        for a in attempts where a.outcome == .success || a.outcome == .drop {
            let at = a.respondedAt ?? a.at
            sets.append((at, nil, a.count, a.responseLogId ?? a.logId))
        }
        sets.sort { $0.time != $1.time ? $0.time < $1.time : $0.order < $1.order }
        var out: [(time: Double, depth: Int)] = []
        out.reserveCapacity(sets.count + 1)
        var depth = 0
        for s in sets {
            if let d = s.depth { depth = d } else { depth = max(0, depth - s.minus) }
            out.append((s.time, depth))
        }
        if let dumpTime { out.append((max(dumpTime, out.last?.time ?? dumpTime), pendingAtDump)) }
        return out
    }
}
