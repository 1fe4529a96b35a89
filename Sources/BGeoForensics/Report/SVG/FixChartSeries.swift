import BGeoReader

/// The speed and accuracy charts' data, reduced from every fix in one pass: each series per
/// pixel column of the charts' time axis, the largest values, and the accuracies counted for their
/// 99th percentile (`RankSelection`). Nothing per fix is kept.
public struct FixChartSeries: Sendable {
    /// The time axis the series were reduced for (`span(first:last:)`).
    public let start: Double
    public let end: Double
    var speeds: TimeChart.LineReducer
    var accuracies: TimeChart.LineReducer
    var fastest: Double?
    var worst: Double?
    var ranks = RankSelection()

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
        let axis = TimeChart(start: start, end: end, yMax: 1, yLabel: "")
        speeds = TimeChart.LineReducer(chart: axis)
        accuracies = TimeChart.LineReducer(chart: axis)
    }

    /// The charts' time axis for a dump whose times run from `first` to `last`: 1 % (at least 30 s)
    /// of room on each side; nil without times.
    public static func span(first: Double?, last: Double?) -> (start: Double, end: Double)? {
        guard let first, let last else { return nil }
        let pad = max((last - first) * 0.01, 30)
        return (first - pad, last + pad)
    }

    /// Adds the next fix (in time order): its speed unless rejected, its accuracy.
    mutating func add(_ f: ChartSample) {
        if !f.rejected, let v = f.speed {
            speeds.add(time: f.time, value: v)
            fastest = fastest.map { $0 < v ? v : $0 } ?? v
        }
        if let a = f.accuracy {
            accuracies.add(time: f.time, value: a)
            worst = worst.map { $0 < a ? a : $0 } ?? a
            ranks.add(a)
        }
    }
}

/// What the speed and accuracy charts read of a fix (a stored trace decodes nothing else for them).
public struct ChartSample: Sendable {
    public var time: Double
    public var rejected: Bool
    public var speed: Double?
    public var accuracy: Double?

    public init(_ f: DecidedFix) {
        self.init(time: f.fix.time, rejected: f.decision.decision == .rejected, speed: f.fix.speed, accuracy: f.fix.accuracy)
    }

    public init(time: Double, rejected: Bool, speed: Double?, accuracy: Double?) {
        self.time = time
        self.rejected = rejected
        self.speed = speed
        self.accuracy = accuracy
    }
}
