import BGeoForensics
/// What a `fleet` run did.
public struct FleetRunSummary: Sendable {
    /// Inputs found (files named and found in folders).
    public var inputs = 0
    /// Rows written by this run, by status.
    public var analysed = 0
    public var notDumps = 0
    public var failed = 0
    /// Inputs not analysed again: done by an earlier run, or identical to an earlier input.
    public var skipped = 0
    /// Rows an earlier run left that were kept / dropped to be redone.
    public var resumedRows = 0
    public var droppedRows = 0
    public var findingLines = 0
    public var seconds = 0.0
    /// The largest peak RSS of any analysis process, MB.
    public var peakChildMB = 0.0
    /// The run was stopped (SIGINT / SIGTERM) before every input was done.
    public var interrupted = false

    public init() {}

    public var done: Int { analysed + notDumps + failed + skipped }

    public var json: JSONValue {
        ["inputs": .from(inputs), "analysed": .from(analysed), "notDumps": .from(notDumps), "failed": .from(failed),
         "skipped": .from(skipped), "resumedRows": .from(resumedRows), "droppedRows": .from(droppedRows),
         "findingLines": .from(findingLines), "seconds": .double((seconds * 1000).rounded() / 1000),
         "peakChildMB": .double(peakChildMB.rounded()), "interrupted": .bool(interrupted)]
    }
}
