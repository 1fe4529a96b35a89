import BGeoReader

/// What `export` writes: the format, which track, how it splits, and whether every fix becomes
/// a feature of its own.
public struct ExportOptions: Sendable {
    public var format: ExportFormat
    public var mode: TrackMode
    /// `--set KEY=VALUE` for the replayed track.
    public var overrides: [String]
    public var gapSeconds: Double
    /// `--points`: one feature per fix (GeoJSON, KML).
    public var includesFixes: Bool
    /// GPX metadata time (nil: omitted).
    public var generatedAt: Double?

    public init(format: ExportFormat, mode: TrackMode = .replayed, overrides: [String] = [],
                gapSeconds: Double = TrackSegmenter.defaultGapSeconds, includesFixes: Bool = false, generatedAt: Double? = nil) {
        self.format = format
        self.mode = mode
        self.overrides = overrides
        self.gapSeconds = gapSeconds
        self.includesFixes = includesFixes
        self.generatedAt = generatedAt
    }
}
