import BGeoForensics
/// Where a `fleet` run's lines go: the resumable files (`FleetLedger`, `-o FILE`) or standard
/// output as a pipe stage (`FleetStream`, `-o -`). The runner asks the sink whether a dump still
/// needs analysing and hands it each input's lines.
public protocol FleetSink: AnyObject, Sendable {
    /// True when a dump with this key is to be analysed (false: already done, its input is skipped).
    func claim(_ key: String) -> Bool
    /// One input's lines: its findings (when the sink writes them), then its row.
    func append(row: String, findings: [String])
    /// The first write that failed (disk full, a closed pipe…), if any: the run stops there.
    var failure: String? { get }
    /// Lines must come out in the order of the inputs (a pipe stage's reader pairs them with
    /// what it sent), rather than as each input finishes (a file: whatever is done is kept).
    var keepsInputOrder: Bool { get }
    /// Rows an earlier run left that were kept / dropped to be redone (0 for a sink that cannot resume).
    var resumedRows: Int { get }
    var droppedRows: Int { get }
}
