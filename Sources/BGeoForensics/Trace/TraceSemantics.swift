import BGeoReader

/// What a trace builder decides, given the parsed copies: which copies are one fix (grouped by
/// uuid), what that fix is, and what happens at one time (adjusted fixes, ties). The streamed
/// assembler (`TraceAssembler`) brings it the copies of each uuid together and the fixes of each
/// millisecond together; the two rule sets are `CompleteTraceSemantics` (replay's trace) and
/// `RecordedTraceSemantics` (the trace as the engine recorded it).
protocol TraceSemantics: SendableMetatype {
    associatedtype QueueCopy: SpoolRecord
    associatedtype LogCopy: SpoolRecord
    associatedtype Output: SpoolRecord

    /// The uuid a queue copy is grouped by.
    func uuid(of copy: QueueCopy) -> String
    /// The uuid a log copy is grouped by; nil when the line is a fix of its own (`standalone`).
    func groupUUID(of line: LogCopy) -> String?
    /// A log line that is not grouped, as a pending fix.
    func standalone(_ line: LogCopy) -> Unplaced<Output>
    /// The fixes made of every copy of one uuid (queue copies by row, log copies by log row);
    /// the copies may be taken out of `group`.
    mutating func resolve(_ group: inout GroupCopies<QueueCopy, LogCopy>, into out: inout [Unplaced<Output>])
    /// Settles a batch of pending fixes sorted by (time, rank) holding every fix of each of its
    /// milliseconds: folds adjust lines, orders ties. Returns the fixes in trace order. (A batch
    /// of one fix is already settled: the assembler stores it without asking.)
    mutating func settle(_ batch: [Unplaced<Output>]) -> [Output]
    /// `settle` for one millisecond kept on disk (too many fixes to hold): the same fixes in the
    /// same order, on a new tape whose path is returned.
    mutating func settle(spilled: SpilledMillisecond<Output>) throws(WorkFileError) -> String
    /// The fix at `index` of the trace, about to be stored.
    mutating func place(_ output: inout Output, at index: Int)
    /// The copy's uuid, when it is a queue copy or a log copy (for the suspect pre-pass).
    func uuid(ofAny copy: AssemblyCopy<QueueCopy, LogCopy>) -> String?
}

extension TraceSemantics {
    func uuid(ofAny copy: AssemblyCopy<QueueCopy, LogCopy>) -> String? {
        switch copy {
        case .queue(let q): return uuid(of: q)
        case .log(let l): return groupUUID(of: l)
        }
    }
}

/// One parsed copy: a queue row's or a log line's.
enum AssemblyCopy<QueueCopy, LogCopy> {
    case queue(QueueCopy)
    case log(LogCopy)
}

/// The copies of one uuid gathered so far, in the order they were met. Nearly every group is one
/// queue row and one log line: those are held inline, so such a group allocates nothing.
struct GroupCopies<QueueCopy, LogCopy> {
    var firstQueue: QueueCopy?
    var firstLog: LogCopy?
    var moreQueue: [QueueCopy] = []
    var moreLog: [LogCopy] = []

    init() {}

    /// Whether the group holds at most one copy of each kind.
    var isSimple: Bool { moreQueue.isEmpty && moreLog.isEmpty }

    mutating func add(queue copy: consuming QueueCopy) {
        if firstQueue == nil { firstQueue = copy } else { moreQueue.append(copy) }
    }

    mutating func add(log copy: consuming LogCopy) {
        if firstLog == nil { firstLog = copy } else { moreLog.append(copy) }
    }

    /// Every queue copy, in the order met.
    var queue: [QueueCopy] { firstQueue.map { [$0] + moreQueue } ?? [] }
    /// Every log copy, in the order met.
    var log: [LogCopy] { firstLog.map { [$0] + moreLog } ?? [] }
}
