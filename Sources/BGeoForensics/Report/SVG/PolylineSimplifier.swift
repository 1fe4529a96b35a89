import BGeoReader

/// Reduces a pixel-space polyline for drawing. First a radial pass drops points closer than the
/// tolerance to the last kept one (linear, bounds the worst case of the next step), then
/// Douglas–Peucker (iterative, no recursion depth limit) removes points whose perpendicular
/// distance to the simplified line is within `tolerance` pixels. End points are always kept.
/// Only the drawing is simplified; every count in the report is taken from the full data.
public enum PolylineSimplifier {
    /// The tolerance the report uses: half a CSS pixel is below what a screen can show.
    public static let reportTolerance = 0.5

    public static func simplify(_ points: [(x: Double, y: Double)], tolerance: Double) -> [(x: Double, y: Double)] {
        var radial = RadialReducer(tolerance: tolerance)
        for p in points { radial.add(p) }
        return douglasPeucker(radial.finish(), tolerance: tolerance)
    }

    /// The radial pass, one point at a time, so a segment of a million fixes is never held: it
    /// keeps the first point, each middle point farther than the tolerance from the last kept
    /// one, and the last point (held back until the segment ends).
    public struct RadialReducer {
        private let tol2: Double
        private(set) var kept: [(x: Double, y: Double)] = []
        private var pending: (x: Double, y: Double)?

        public init(tolerance: Double) { tol2 = tolerance * tolerance }

        public var isEmpty: Bool { kept.isEmpty && pending == nil }

        public mutating func add(_ p: (x: Double, y: Double)) {
            guard !kept.isEmpty else { kept.append(p); return }
            if let middle = pending {
                let last = kept[kept.count - 1]
                let dx = middle.x - last.x, dy = middle.y - last.y
                if dx * dx + dy * dy > tol2 { kept.append(middle) }
            }
            pending = p
        }

        /// The reduced points (the last point included); the reducer starts over.
        public mutating func finish() -> [(x: Double, y: Double)] {
            if let last = pending { kept.append(last) }
            defer { kept = []; pending = nil }
            return kept
        }
    }

    /// Douglas–Peucker (iterative) over points already through the radial pass.
    static func douglasPeucker(_ radial: [(x: Double, y: Double)], tolerance: Double) -> [(x: Double, y: Double)] {
        let tol2 = tolerance * tolerance
        guard radial.count > 2 else { return radial }
        var keep = [Bool](repeating: false, count: radial.count)
        keep[0] = true
        keep[radial.count - 1] = true
        var stack: [(Int, Int)] = [(0, radial.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            let a = radial[first], b = radial[last]
            var maxDistance = -1.0
            var index = first
            for i in (first + 1)..<last {
                let d = segmentDistanceSquared(radial[i], a, b)
                if d > maxDistance { maxDistance = d; index = i }
            }
            if maxDistance > tol2 {
                keep[index] = true
                stack.append((first, index))
                stack.append((index, last))
            }
        }
        var out: [(x: Double, y: Double)] = []
        for (i, p) in radial.enumerated() where keep[i] { out.append(p) }
        return out
    }

    /// Squared distance from p to the segment a–b.
    static func segmentDistanceSquared(_ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        var t = 0.0
        if length2 > 0 { t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2)) }
        let px = a.x + t * dx - p.x, py = a.y + t * dy - p.y
        return px * px + py * py
    }
}
