import BGeoReader
import Foundation

/// A time-series chart frame drawn as inline SVG: UTC time on x, one value axis on y, from plain
/// arrays. Series are reduced to at most a min/max pair per pixel column before drawing, so a
/// million samples draw as a few thousand vertices with the same envelope.
public struct TimeChart: Sendable {
    public var width: Double = 960
    public var height: Double = 200
    public let start: Double
    public let end: Double
    public let yMax: Double
    public let yLabel: String
    let left = 56.0, right = 16.0, top = 14.0, bottom = 30.0

    public init(start: Double, end: Double, yMax: Double, yLabel: String, width: Double = 960, height: Double = 200) {
        self.start = start
        self.end = end > start ? end : start + 60
        self.yMax = yMax > 0 && yMax.isFinite ? yMax : 1
        self.yLabel = yLabel
        self.width = width
        self.height = height
    }

    var plotWidth: Double { width - left - right }
    var plotHeight: Double { height - top - bottom }

    public func x(_ t: Double) -> Double { left + (t - start) / (end - start) * plotWidth }
    public func y(_ v: Double) -> Double { top + plotHeight - min(max(v, 0), yMax) / yMax * plotHeight }
    /// The value drawn at height `y` (the inverse of `y(_:)`, for reading a chart back).
    public func value(atY y: Double) -> Double { (top + plotHeight - y) / plotHeight * yMax }

    /// Opening tag, grid, axes and tick labels. Close with `close()`.
    public func open(label: String) -> String {
        var s = "<svg class=\"chart\" viewBox=\"0 0 \(SVGFormat.n(width)) \(SVGFormat.n(height))\" role=\"img\" aria-label=\"\(HTMLEscape.escape(label))\">"
        s += "<rect class=\"plot-bg\" x=\"\(SVGFormat.n(left))\" y=\"\(SVGFormat.n(top))\" width=\"\(SVGFormat.n(plotWidth))\" height=\"\(SVGFormat.n(plotHeight))\"/>"
        // y ticks: 0, and 4 round steps.
        let step = TimeChart.niceStep(yMax / 4)
        var v = 0.0
        while v <= yMax + step * 1e-9 {
            let yy = y(v)
            s += "<line class=\"grid\" x1=\"\(SVGFormat.n(left))\" y1=\"\(SVGFormat.n(yy))\" x2=\"\(SVGFormat.n(left + plotWidth))\" y2=\"\(SVGFormat.n(yy))\"/>"
            s += "<text class=\"tick\" x=\"\(SVGFormat.n(left - 6))\" y=\"\(SVGFormat.n(yy + 4))\" text-anchor=\"end\">\(DecimalText.format(v, places: step < 1 ? 2 : 0))</text>"
            v += step
        }
        s += "<text class=\"axis-label\" x=\"12\" y=\"\(SVGFormat.n(top + plotHeight / 2))\" transform=\"rotate(-90 12 \(SVGFormat.n(top + plotHeight / 2)))\" text-anchor=\"middle\">\(HTMLEscape.escape(yLabel))</text>"
        // x ticks.
        let span = end - start
        let steps: [Double] = [60, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
                               2_592_000, 7_776_000, 15_552_000, 31_536_000]
        let tStep = steps.first { span / $0 <= 8 } ?? steps.last!
        let withDate = span > 86_400 || tStep >= 86_400
        var t = (start / tStep).rounded(.up) * tStep
        while t <= end {
            let xx = x(t)
            s += "<line class=\"grid\" x1=\"\(SVGFormat.n(xx))\" y1=\"\(SVGFormat.n(top))\" x2=\"\(SVGFormat.n(xx))\" y2=\"\(SVGFormat.n(top + plotHeight))\"/>"
            // A label this close to the right edge would run into "UTC": the grid line stays.
            if xx < width - right - 60 {
                s += "<text class=\"tick\" x=\"\(SVGFormat.n(xx))\" y=\"\(SVGFormat.n(height - 10))\" text-anchor=\"middle\">\(SVGFormat.clock(t, withDate: withDate))</text>"
            }
            t += tStep
        }
        s += "<text class=\"tick\" x=\"\(SVGFormat.n(width - right))\" y=\"\(SVGFormat.n(height - 10))\" text-anchor=\"end\">UTC</text>"
        return s
    }

    public func close() -> String { "</svg>" }

    /// 1, 2 or 5 × 10ⁿ at or above `raw`.
    public static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(raw)))
        for m in [1.0, 2.0, 5.0, 10.0] where m * magnitude >= raw { return m * magnitude }
        return 10 * magnitude
    }

    /// A "nice" axis maximum at or above `value`: the next multiple of a 1/2/5 step of about a
    /// fifth of it (441 → 500, not 800), so the data fills most of the plot.
    public static func niceMax(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let step = niceStep(value / 5)
        return (value / step).rounded(.up) * step
    }

    /// A line through samples, reduced per pixel column to (first, min, max, last).
    public func line(_ samples: [(time: Double, value: Double)], cssClass: String, step: Bool = false) -> String {
        var reducer = LineReducer(chart: self)
        for sample in samples { reducer.add(time: sample.time, value: sample.value) }
        return line(reducer, cssClass: cssClass, step: step)
    }

    /// Samples reduced per pixel column as they come, in time order (a million fixes become a
    /// few points per column): the first, the lowest and highest (in time order), the last.
    public struct LineReducer: Sendable {
        private let chart: TimeChart
        private var column = Int.min
        private var bucket: [(Double, Double)] = []
        private var points: [(Double, Double)] = []
        /// Samples given, the non-finite ones (not drawn) included.
        public private(set) var count = 0

        public init(chart: TimeChart) { self.chart = chart }

        public mutating func add(time: Double, value: Double) {
            count += 1
            guard value.isFinite else { return }
            let px = chart.x(time)
            let c = Int(clamping: px, to: Int.min...Int.max)
            if c != column { flush(); column = c }
            bucket.append((px, value))
        }

        private mutating func flush() {
            guard !bucket.isEmpty else { return }
            points.append(bucket[0])
            if bucket.count > 2 {
                let lo = bucket.min { $0.1 < $1.1 }!, hi = bucket.max { $0.1 < $1.1 }!
                points += lo.0 <= hi.0 ? [lo, hi] : [hi, lo]
            }
            if bucket.count > 1 { points.append(bucket[bucket.count - 1]) }
            bucket.removeAll(keepingCapacity: true)
        }

        /// The reduced points, (x in pixels, value).
        public func finish() -> [(Double, Double)] {
            var copy = self
            copy.flush()
            return copy.points
        }
    }

    /// The line through the samples a `LineReducer` (made with this chart's time axis) reduced.
    public func line(_ reducer: LineReducer, cssClass: String, step: Bool = false) -> String {
        guard reducer.count > 0 else { return "" }
        var d = ""
        var lastY: Double?
        for (px, vy) in reducer.finish() {
            let yy = y(vy)
            if d.isEmpty {
                d = "M" + SVGFormat.n(px) + " " + SVGFormat.n(yy)
            } else {
                if step, let lastY { d += "L" + SVGFormat.n(px) + " " + SVGFormat.n(lastY) }
                d += "L" + SVGFormat.n(px) + " " + SVGFormat.n(yy)
            }
            lastY = yy
        }
        if step, let lastY { d += "L" + SVGFormat.n(x(end)) + " " + SVGFormat.n(lastY) }
        return "<path class=\"\(cssClass)\" d=\"\(d)\"/>"
    }

    /// A horizontal reference line with a label (a filter limit, …).
    public func reference(_ value: Double, label: String, cssClass: String = "ref") -> String {
        let yy = y(value)
        return "<line class=\"\(cssClass)\" x1=\"\(SVGFormat.n(left))\" y1=\"\(SVGFormat.n(yy))\" x2=\"\(SVGFormat.n(left + plotWidth))\" y2=\"\(SVGFormat.n(yy))\"/>"
            + "<text class=\"ref-label\" x=\"\(SVGFormat.n(left + plotWidth - 4))\" y=\"\(SVGFormat.n(yy - 4))\" text-anchor=\"end\">\(HTMLEscape.escape(label))</text>"
    }

    /// A shaded time band (a tracking gap).
    public func band(from a: Double, to b: Double, cssClass: String, title: String) -> String {
        let x1 = max(x(a), left), x2 = min(x(b), left + plotWidth)
        guard x2 > x1 else { return "" }
        return "<rect class=\"\(cssClass)\" x=\"\(SVGFormat.n(x1))\" y=\"\(SVGFormat.n(top))\" width=\"\(SVGFormat.n(x2 - x1))\" height=\"\(SVGFormat.n(plotHeight))\"><title>\(HTMLEscape.escape(title))</title></rect>"
    }
}
