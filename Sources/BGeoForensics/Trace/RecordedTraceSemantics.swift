import BGeoReader

/// The trace as the engine recorded it, rule for rule as `RecordedTraceReader.read` applies them
/// in memory: every queued location record is a fix; a `location` line whose uuid is queued only
/// teaches the first such queue row its raw position (the last line's) and the fields it lacks;
/// a line whose uuid is not queued is a fix the first time its uuid is logged; reject, adjust and
/// uuid-less lines are fixes of their own. Ties keep reading order (queue rows, then log rows).
struct RecordedTraceSemantics: TraceSemantics {
    typealias QueueCopy = ReportFix
    typealias LogCopy = ReportFix
    typealias Output = ReportFix

    func uuid(of copy: ReportFix) -> String { copy.uuid ?? "" }

    func groupUUID(of line: LogCopy) -> String? { line.isLocationLine ? line.uuid : nil }

    func standalone(_ line: LogCopy) -> Unplaced<ReportFix> {
        Unplaced(time: line.time, rank: .log(line.source.rowId), output: line)
    }

    mutating func resolve(_ group: inout GroupCopies<ReportFix, LogCopy>, into out: inout [Unplaced<ReportFix>]) {
        if group.isSimple {
            // One queue row and/or one line (nearly every fix): no arrays, no sorting.
            if var first = group.firstQueue.take() {
                if let line = group.firstLog.take() { RecordedTraceReader.learn(from: line, into: &first) }
                out.append(Unplaced(time: first.time, rank: .queue(first.source.rowId), output: first))
            } else {
                let line = group.firstLog.take()!
                out.append(Unplaced(time: line.time, rank: .log(line.source.rowId), output: line))
            }
            return
        }
        resolve(queue: group.queue, log: group.log, into: &out)
    }

    private mutating func resolve(queue: [ReportFix], log: [LogCopy], into out: inout [Unplaced<ReportFix>]) {
        let rows = queue.count > 1 ? queue.sorted { $0.source.rowId < $1.source.rowId } : queue
        let lines = log.count > 1 ? log.sorted { $0.source.rowId < $1.source.rowId } : log
        guard var first = rows.first else {
            let line = lines[0]
            out.append(Unplaced(time: line.time, rank: .log(line.source.rowId), output: line))
            return
        }
        for line in lines { RecordedTraceReader.learn(from: line, into: &first) }
        out.append(Unplaced(time: first.time, rank: .queue(first.source.rowId), output: first))
        for row in rows.dropFirst() { out.append(Unplaced(time: row.time, rank: .queue(row.source.rowId), output: row)) }
    }

    func settle(_ batch: [Unplaced<ReportFix>]) -> [ReportFix] { batch.map(\.output) }

    /// Every stored fix passes here in trace order: the export bounds are gathered on the way, so
    /// a GPX header (written before its points) needs no pass of its own.
    mutating func place(_ fix: inout ReportFix, at index: Int) { bounds.add(fix) }

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

extension ReportFix {
    /// A `location` line's fix: the only log line the engine accepted as it stands (reject and
    /// adjust lines carry their own decision), and the only one a queued uuid groups.
    var isLocationLine: Bool {
        guard case .log = source else { return false }
        return decision == .accepted
    }
}

/// The boxes an export of the recorded trace needs: `raw` (every fix where it was measured) and
/// `track` (the fixes the engine kept, where it put them) — `TrackPoint.onTrack` in each mode.
struct RecordedTraceBounds: Sendable {
    private(set) var raw: GeoBounds?
    private(set) var track: GeoBounds?

    mutating func add(_ fix: ReportFix) {
        raw = GeoBounds.including(raw, latitude: fix.latitude, longitude: fix.longitude)
        if fix.decision != .rejected {
            track = GeoBounds.including(track, latitude: fix.outputLatitude, longitude: fix.outputLongitude)
        }
    }
}
