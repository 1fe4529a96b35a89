import BGeoForensics
/// How a `fleet` input ended.
public enum FleetRowStatus: String, Sendable, CaseIterable {
    /// Analysed: the row carries the dump's facts.
    case ok
    /// Not a dump (text, empty, truncated, unknown tables…): the row carries the sentence and exit code 2.
    /// Final: a re-run skips it like an analysed dump.
    case notADump = "not_a_dump"
    /// The analysis crashed, ran out of memory or time, or the machine failed it (`$TMPDIR` full,
    /// read-only or not a folder, no file descriptor left): the row says so (exit code 1). A re-run
    /// tries it again.
    case failed

    /// Whether a re-run with the same output leaves the row as it is.
    public var isFinal: Bool { self != .failed }
}
