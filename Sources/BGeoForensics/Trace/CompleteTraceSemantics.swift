import BGeoReader

/// Replay's trace (replay-semantics.md, "Which fixes"), rule for rule as `TraceMerger` applies
/// them in memory: a uuid's queue rows and `location` lines are one fix — its first queue row
/// (other rows with that uuid are dropped), else its first line — with the lines folded in log
/// order (raw_* preferred, missing fields filled, a located warning when a copy's time differs);
/// `filter.reject` lines and uuid-less location lines are fixes of their own; a `filter.adjust`
/// line folds into the first accepted fix (by queue row, then log row) of its millisecond, at most
/// one per millisecond, else it is a fix of its own.
struct CompleteTraceSemantics: TraceSemantics {
    typealias QueueCopy = Fix
    typealias LogCopy = Fix
    typealias Output = Fix

    var stats = Trace.Stats()
    /// Warnings about conflicting copies, with the log row they are about (they are reported in
    /// log order, as the in-memory merge meets them). Made at the first: an assembly run begun
    /// again from the semantics it started with starts with none.
    private(set) var warnings: ConflictWarnings?
    /// Where the warnings go past those held (none: all are held).
    private let folder: WorkFolder?
    /// The queue's pending records as the trace keeps them (for the report's header).
    var queueFacts = QueueFacts()

    init(folder: WorkFolder? = nil) {
        self.folder = folder
    }

    private mutating func warn(_ warning: DumpWarning) {
        if warnings == nil { warnings = ConflictWarnings(folder: folder) }
        warnings!.append(warning)
    }

    func uuid(of copy: Fix) -> String { copy.uuid }

    func groupUUID(of line: LogCopy) -> String? { line.lineKind == .location ? line.uuid : nil }

    func standalone(_ line: LogCopy) -> Unplaced<Fix> {
        switch line.lineKind {
        case .adjust: return Unplaced(time: line.time, rank: .lateAdjust(line.logId ?? 0), output: line, isAdjustLine: true)
        default: return Unplaced(time: line.time, rank: .log(line.logId ?? 0), output: line)
        }
    }

    mutating func resolve(_ group: inout GroupCopies<Fix, LogCopy>, into out: inout [Unplaced<Fix>]) {
        if group.isSimple {
            // One queue row and/or one line (nearly every fix): no arrays, no sorting.
            if var fix = group.firstQueue.take() {
                let rank = TraceRank.queue(fix.rowId!)
                if let line = group.firstLog.take(), let warning = TraceMerger.merge(line, into: &fix, stats: &stats) {
                    warn(warning)
                }
                out.append(Unplaced(time: fix.time, rank: rank, output: fix))
            } else {
                let line = group.firstLog.take()!
                out.append(Unplaced(time: line.time, rank: .log(line.logId ?? 0), output: line))
            }
            return
        }
        resolve(queue: group.queue, log: group.log, into: &out)
    }

    private mutating func resolve(queue: [Fix], log: [LogCopy], into out: inout [Unplaced<Fix>]) {
        let rows = queue.count > 1 ? queue.sorted { $0.rowId! < $1.rowId! } : queue
        let lines = log.count > 1 ? log.sorted { ($0.logId ?? 0) < ($1.logId ?? 0) } : log
        var fix: Fix
        var rank: TraceRank
        var folded = lines[...]
        if let first = rows.first {
            fix = first
            rank = .queue(first.rowId!)
            // The uuid column is UNIQUE in every known schema; a repeated row is dropped, the first wins.
            for other in rows.dropFirst() {
                stats.duplicates += 1
                if other.time != first.time { stats.conflictingDuplicates += 1 }
            }
        } else {
            fix = lines[0]
            rank = .log(lines[0].logId ?? 0)
            folded = lines.dropFirst()
        }
        for line in folded {
            if let warning = TraceMerger.merge(line, into: &fix, stats: &stats) { warn(warning) }
        }
        out.append(Unplaced(time: fix.time, rank: rank, output: fix))
    }

    mutating func settle(_ batch: [Unplaced<Fix>]) -> [Fix] {
        var batch = batch
        // Adjust lines, millisecond by millisecond (the batch is in time order, so each is a run).
        if batch.contains(where: \.isAdjustLine) {
            var start = 0
            while start < batch.count {
                let millisecond = batch[start].millisecond
                var end = start + 1
                while end < batch.count, batch[end].millisecond == millisecond { end += 1 }
                foldAdjustments(&batch, start..<end)
                start = end
            }
            batch.removeAll { $0.isAdjustLine && $0.rank.segment == TraceRank.consumed }
        }
        var fixes = batch.map(\.output)
        var start = 0
        while start < fixes.count {
            var end = start + 1
            while end < fixes.count, fixes[end].time == fixes[start].time { end += 1 }
            if end - start > 1 { TraceOrder.arrangeTies(&fixes[start..<end]) }
            start = end
        }
        return fixes
    }

    mutating func settle(spilled: SpilledMillisecond<Fix>) throws(WorkFileError) -> String {
        // First pass: what `foldAdjustments` picks — the first adjust line and the first accepted
        // fix, by rank.
        var line: Unplaced<Fix>?
        var target: TraceRank?
        try spilled.forEach { (fix: inout Unplaced<Fix>) throws(WorkFileError) in
            if fix.isAdjustLine {
                if line.map({ fix.rank < $0.rank }) ?? true { line = fix }
            } else if TraceMerger.takesAdjustment(fix.output), target.map({ fix.rank < $0 }) ?? true {
                target = fix.rank
            }
        }
        let fold = target.flatMap { target in line.map { (target: target, line: $0) } }
        let out = try spilled.newTape()
        var runs = TraceOrder.TieRuns(out: out, held: spilled.held, folder: spilled.folder)
        try spilled.forEach { (fix: inout Unplaced<Fix>) throws(WorkFileError) in
            if let fold {
                if fix.isAdjustLine, fix.rank == fold.line.rank { return }
                if fix.rank == fold.target { TraceMerger.fold(adjustLine: fold.line.output, into: &fix.output, stats: &stats) }
            }
            try runs.add(fix.output)
        }
        try runs.finish()
        try out.finish()
        return out.path
    }

    /// One millisecond: its first adjust line (log order) folds into its first accepted fix
    /// (gathering order); the other adjust lines stay fixes of their own.
    private mutating func foldAdjustments(_ batch: inout [Unplaced<Fix>], _ range: Range<Int>) {
        var target: Int?
        var line: Int?
        for i in range {
            if batch[i].isAdjustLine {
                if line.map({ batch[i].rank < batch[$0].rank }) ?? true { line = i }
            } else if TraceMerger.takesAdjustment(batch[i].output) {
                if target.map({ batch[i].rank < batch[$0].rank }) ?? true { target = i }
            }
        }
        guard let target, let line else { return }
        TraceMerger.fold(adjustLine: batch[line].output, into: &batch[target].output, stats: &stats)
        batch[line].rank.segment = TraceRank.consumed
    }

    mutating func place(_ fix: inout Fix, at index: Int) {
        fix.index = index
        if fix.isRaw { stats.rawPositions += 1 } else { stats.smoothedOnly += 1 }
        if let rowId = fix.rowId { queueFacts.add(time: fix.time, rowId: rowId, uuid: fix.uuid) }
    }
}

extension TraceRank {
    /// Marks an adjust line folded into its fix (removed from the batch).
    static let consumed: UInt8 = 255
}

/// What the trace says about the pending records: how many fixes came from the queue, their time
/// span (with the geofence records'), and the oldest row's uuid — the report header's queue facts.
public struct QueueFacts: Sendable, Equatable {
    public var locations = 0
    public var geofences = 0
    public var oldestTime: Double?
    public var newestTime: Double?
    public var headRow: Int64?
    public var headUUID: String?

    public init() {}

    mutating func add(time: Double, rowId: Int64, uuid: String, geofence: Bool = false) {
        if geofence { geofences += 1 } else { locations += 1 }
        oldestTime = min(oldestTime ?? time, time)
        newestTime = max(newestTime ?? time, time)
        if headRow.map({ rowId < $0 }) ?? true {
            headRow = rowId
            headUUID = uuid
        }
    }
}
