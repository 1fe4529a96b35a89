/// What a trace builder decides, given the parsed copies: which copies are one fix (grouped by
/// uuid), what that fix is, and what happens at one time (adjusted fixes, ties). The streamed
/// assembler (`TraceAssembler`) brings it the copies of each uuid together and the fixes of each
/// millisecond together; the two rule sets are `CompleteTraceSemantics` (replay's trace) and
/// `RecordedTraceSemantics` (the trace as the engine recorded it).
protocol TraceSemantics {
    associatedtype QueueCopy: SpoolRecord
    associatedtype LogCopy: SpoolRecord
    associatedtype Output: SpoolRecord

    /// The uuid a queue copy is grouped by.
    func uuid(of copy: QueueCopy) -> String
    /// The uuid a log copy is grouped by; nil when the line is a fix of its own (`standalone`).
    func groupUUID(of line: LogCopy) -> String?
    /// A log line that is not grouped, as a pending fix.
    func standalone(_ line: LogCopy) -> PendingFix<Output>
    /// The fixes made of every copy of one uuid (queue copies by row, log copies by log row).
    mutating func resolve(queue: [QueueCopy], log: [LogCopy], into out: inout [PendingFix<Output>])
    /// Settles a batch of pending fixes sorted by (time, rank) holding every fix of each of its
    /// milliseconds: folds adjust lines, orders ties. Returns the fixes in trace order.
    mutating func settle(_ batch: [PendingFix<Output>]) -> [Output]
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
