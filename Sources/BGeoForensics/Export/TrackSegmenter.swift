import BGeoReader

/// Splits a track into segments at gaps: a new segment starts wherever consecutive track points
/// are `gapSeconds` or more apart (the timeline's tracking-gap rule: a silence of at least the
/// threshold). Every export format splits the same way.
public struct TrackSegmenter: Sendable {
    /// The timeline's default gap threshold: 15 minutes.
    public static let defaultGapSeconds: Double = 15 * 60

    public let gapSeconds: Double
    private var previous: Double?

    public init(gapSeconds: Double = TrackSegmenter.defaultGapSeconds) {
        self.gapSeconds = gapSeconds
    }

    /// Feeds the next track point's time; true when it starts a segment (the first point does).
    public mutating func startsSegment(at time: Double) -> Bool {
        defer { previous = time }
        guard let previous else { return true }
        return time - previous >= gapSeconds
    }
}
