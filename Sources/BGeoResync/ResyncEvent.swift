import BGeoForensics
import Foundation

/// Where a run is, for progress bars and plain progress lines.
public struct ResyncProgress: Sendable {
    public var lane: String
    /// Records (or log rows) delivered this run.
    public var sent: Int
    public var remaining: Int
    public var quarantined: Int
    public var requests: Int
    public var elapsed: Double
    /// The wait in progress, seconds (0 when none).
    public var backoff: Double
    /// The last HTTP status a server answered this run (nil before any answer).
    public var lastStatus: Int?
    /// The failure of the last attempt when it failed (nil when it succeeded).
    public var failing: ResyncFailure?
}

/// Something an operator should see.
public enum ResyncEvent: Sendable {
    case progress(ResyncProgress)
    /// A one-line note: backoff, refresh, quarantine, split, halved batch, stop reason.
    case note(String)
}
