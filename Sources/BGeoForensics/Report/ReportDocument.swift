import BGeoReader

/// Everything one report shows, gathered from a dump; `HTMLReportRenderer` turns it into a page.
public struct ReportDocument: Sendable {
    public var dumpName: String
    public var inputs: [DumpInput]
    public var layout: DumpLayout
    public var generatedAt: Double
    /// Earliest and latest time anywhere in the dump (queue and log), UTC.
    public var firstTime: Double?
    public var lastTime: Double?
    /// UTC offsets (seconds) found in timestamps written with one; empty when all are UTC.
    public var deviceOffsets: [Int]
    public var summary: ReportOverview
    public var trace: any ReportFixSource
    public var attempts: [ReportAttempt]
    /// The queue-depth series, read from its spool each time it is drawn.
    var queueDepth: QueueDepthSeries.Series
    public var gaps: [ReportGap]
    public var gapSeconds: Double
    public var findings: [ReportFinding]
    /// Where findings came from ("timeline analysis" or a note that a simpler reading was used).
    public var findingsSource: String
    public var replay: ReportReplaySummary
    public var tables: [ReportTable]
    /// `locationFilterMaxAccuracy` in effect (drawn on the accuracy chart).
    public var maxAccuracy: Double
    public var showSecrets: Bool
    /// Evidence rows shown under each finding (anchor → one-line text).
    public var evidenceText: [String: String]
    /// Queue-row anchor of each uuid a finding names (when the record is still queued), by its
    /// bytes: two spellings of a uuid are two records, each with its own row.
    public var uuidAnchors: [ExactText: String]
    /// How the map's decisions were obtained.
    public var mapNote: String
    /// Set when `sanitize` wrote this dump: what was changed (one line).
    public var sanitized: String? = nil
    /// The drawings' first pass, made while the trace was written (nil: the drawings make it).
    public var sketch: ReportTraceSketch? = nil
}
