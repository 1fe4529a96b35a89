import BGeoReader

/// How `report` builds a page.
public struct ReportOptions: Sendable {
    /// The generation time printed in the header (fixed for reproducible example reports).
    public var generatedAt: Double
    /// Print secrets in clear (default: redacted).
    public var showSecrets: Bool
    /// Tracking-gap threshold (the timeline's default, 15 min).
    public var gapSeconds: Double
    /// Rows embedded per table: the first and last half of this many, plus every evidence row.
    public var maxTableRows: Int
    /// `--set KEY=VALUE` overrides of filter keys for the replay (as `replay --set`).
    public var overrides: [String]

    public init(generatedAt: Double, showSecrets: Bool = false, gapSeconds: Double = 15 * 60, maxTableRows: Int = 5000,
                overrides: [String] = []) {
        self.generatedAt = generatedAt
        self.showSecrets = showSecrets
        self.gapSeconds = gapSeconds
        self.maxTableRows = maxTableRows
        self.overrides = overrides
    }
}
