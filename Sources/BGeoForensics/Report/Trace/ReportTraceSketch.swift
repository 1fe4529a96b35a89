import BGeoReader

/// What the drawings' first pass over every fix gathers, gathered instead while the replay writes
/// the report's trace: the map's box of the fixes and the charts' series. The drawings then walk
/// the stored trace once less; what they draw is the same, the same code having seen the same fixes.
public struct ReportTraceSketch: Sendable {
    /// The box of every fix's output position and of each adjusted or rejected fix's own (nil
    /// without fixes); geofences are not in it.
    public private(set) var fixBounds: GeoBounds?
    /// The speed and accuracy series over the charts' time axis; nil when the dump has no times.
    public private(set) var chartSeries: FixChartSeries?

    /// `chartSpan`: the charts' time axis (`FixChartSeries.span`).
    public init(chartSpan: (start: Double, end: Double)?) {
        chartSeries = chartSpan.map { FixChartSeries(start: $0.start, end: $0.end) }
    }

    /// Adds the next fix of the trace (in time order).
    mutating func add(_ f: DecidedFix) {
        fixBounds = MapRenderer.including(fixBounds, f)
        chartSeries?.add(ChartSample(f))
    }
}
