/// How a dump's input files are hashed for `Dump.inputs` (the SHA-256 an output states).
public enum InputHashing: Sendable {
    /// Not at all: for a command whose output states no hash (`gpx`, `export`, the listings).
    case none
    /// On a thread of its own beside the reads, as one of them.
    case beside
    /// Beside the reads, at a lower scheduling priority (nice 10, on that thread only): for a
    /// command whose reading and work on two cores take well longer than the hash and which
    /// asks for it only at the end (`timeline`, `replay`). Competing as an equal, the hash took a
    /// core's share while those threads were the critical path and left the cores idle at the
    /// end; yielding, it fills the idle moments and finishes alone only if it must. Measured at
    /// 250 k (2026-12-06): timeline 3–5 % faster on stranded, log 5× and every fix alone, replay
    /// 2–10 % on four shapes; `inspect`, whose scans take about as long as the hash, was slower
    /// (up to 14 %), so it keeps `beside`.
    case yieldingToReads

    var hashes: Bool { self != .none }
}
