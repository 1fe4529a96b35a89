/// Queue depth over time, from what the log says: `queue.insert` / `queue.prune` counts and
/// `sync.deferred` pending counts set it; successful uploads and poison drops (from the
/// timeline's attempts) take their batch off it. The last point is the queue at dump time.
public enum QueueDepthSeries {
    public static func build(dump: Dump, attempts: [UploadAttempt], pendingAtDump: Int, dumpTime: Double?) -> [(time: Double, depth: Int)] {
        var sets: [(time: Double, depth: Int?, minus: Int, order: Int64)] = []
        dump.forEachLogEntry(LogQuery(events: ["queue.insert", "queue.prune", "sync.deferred"])) { entry in
            guard let data = entry.data else { return }
            let value = entry.event == "sync.deferred" ? data["pending"]?.intValue : data["count"]?.intValue
            if let value { sets.append((entry.time, value, 0, entry.rowId)) }
        }
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
