import BGeoReader

/// How a timeline is built: which policy to check against, the gap threshold, the window, and
/// the bounds that keep a giant dump's timeline small.
public struct TimelineOptions: Sendable {
    /// The policy the log is checked against (default: the dump's own engine).
    public var policy: UploadPolicy?
    /// Silence longer than this between fixes is a tracking gap (default 15 min).
    public var gapThreshold: Double
    /// Only rows at or after / at or before these times.
    public var since: Double?
    public var until: Double?
    /// Engine events this close to a gap's edges are shown as its context (default 10 min).
    public var contextWindow: Double
    /// Event entries listed before only essential kinds are kept (collapsed runs count once).
    public var eventLimit: Int
    /// Attempts kept: the first and the last half of this many.
    public var attemptLimit: Int
    /// Uuids kept per attempt.
    public var uuidLimit: Int
    /// Gaps listed.
    public var gapLimit: Int
    /// Context marks held before the ones no gap can show are dropped (`TimelineBuilder.pruneMarks`);
    /// the tests set it to `.max` for the unpruned reference.
    var markPruneThreshold = 20_000

    public init(policy: UploadPolicy? = nil, gapThreshold: Double = 900, since: Double? = nil, until: Double? = nil,
                contextWindow: Double = 600, eventLimit: Int = 5000, attemptLimit: Int = 20_000, uuidLimit: Int = 20,
                gapLimit: Int = 2000) {
        self.policy = policy
        self.gapThreshold = gapThreshold
        self.since = since
        self.until = until
        self.contextWindow = contextWindow
        self.eventLimit = eventLimit
        self.attemptLimit = attemptLimit
        self.uuidLimit = uuidLimit
        self.gapLimit = gapLimit
    }
}
