import BGeoReader

/// The trace as the engine recorded it, rule for rule as `RecordedTraceReader.read` applies them
/// in memory: every queued location record is a fix; a `location` line whose uuid is queued only
/// teaches the first such queue row its raw position (the last line's) and the fields it lacks;
/// a line whose uuid is not queued is a fix the first time its uuid is logged; reject, adjust and
/// uuid-less lines are fixes of their own. Ties keep reading order (queue rows, then log rows).
struct RecordedTraceSemantics: TraceSemantics {
    typealias QueueCopy = DecidedFix
    typealias LogCopy = DecidedFix
    typealias Output = DecidedFix

    func uuid(of copy: DecidedFix) -> String { copy.fix.uuid }

    func groupUUID(of line: LogCopy) -> String? { line.isLocationLine ? line.fix.statedUUID : nil }

    func standalone(_ line: LogCopy) -> Unplaced<DecidedFix> {
        Unplaced(time: line.fix.time, rank: .log(line.fix.evidence.rowId), output: line)
    }

    mutating func resolve(_ group: inout GroupCopies<DecidedFix, LogCopy>, into out: inout [Unplaced<DecidedFix>]) {
        if group.isSimple {
            // One queue row and/or one line (nearly every fix): no arrays, no sorting.
            if var first = group.firstQueue.take() {
                if let line = group.firstLog.take() { RecordedTraceReader.learn(from: line, into: &first) }
                out.append(Unplaced(time: first.fix.time, rank: .queue(first.fix.evidence.rowId), output: first))
            } else {
                let line = group.firstLog.take()!
                out.append(Unplaced(time: line.fix.time, rank: .log(line.fix.evidence.rowId), output: line))
            }
            return
        }
        resolve(queue: group.queue, log: group.log, into: &out)
    }

    private mutating func resolve(queue: [DecidedFix], log: [LogCopy], into out: inout [Unplaced<DecidedFix>]) {
        let rows = queue.count > 1 ? queue.sorted { $0.fix.evidence.rowId < $1.fix.evidence.rowId } : queue
        let lines = log.count > 1 ? log.sorted { $0.fix.evidence.rowId < $1.fix.evidence.rowId } : log
        guard var first = rows.first else {
            let line = lines[0]
            out.append(Unplaced(time: line.fix.time, rank: .log(line.fix.evidence.rowId), output: line))
            return
        }
        for line in lines { RecordedTraceReader.learn(from: line, into: &first) }
        out.append(Unplaced(time: first.fix.time, rank: .queue(first.fix.evidence.rowId), output: first))
        for row in rows.dropFirst() { out.append(Unplaced(time: row.fix.time, rank: .queue(row.fix.evidence.rowId), output: row)) }
    }

    func settle(_ batch: [Unplaced<DecidedFix>]) -> [DecidedFix] { batch.map(\.output) }

    func settle(spilled: SpilledMillisecond<DecidedFix>) throws(WorkFileError) -> String {
        let out = try spilled.newTape()
        try spilled.forEach { (fix: inout Unplaced<DecidedFix>) throws(WorkFileError) in out.append(fix.output) }
        try out.finish()
        return out.path
    }

    /// Every stored fix passes here in trace order: the export bounds are gathered on the way, so
    /// a GPX header (written before its points) needs no pass of its own.
    mutating func place(_ fix: inout DecidedFix, at index: Int) { bounds.add(fix) }

    /// The bounds of the stored trace so far.
    private(set) var bounds = RecordedTraceBounds()
}

extension EvidenceRef {
    /// The row id, whichever table it is in.
    var rowId: Int64 {
        switch self {
        case .queue(let id), .log(let id): return id
        }
    }
}

/// The boxes an export of the recorded trace needs: `raw` (every fix where it was measured) and
/// `track` (the fixes the engine kept, where it put them) — `TrackPoint.onTrack` in each mode.
struct RecordedTraceBounds: Sendable {
    private(set) var raw: GeoBounds?
    private(set) var track: GeoBounds?

    mutating func add(_ f: DecidedFix) {
        raw = GeoBounds.including(raw, latitude: f.fix.latitude, longitude: f.fix.longitude)
        if f.decision.decision != .rejected {
            track = GeoBounds.including(track, latitude: f.decision.latitude, longitude: f.decision.longitude)
        }
    }
}
