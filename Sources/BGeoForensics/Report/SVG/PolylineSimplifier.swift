/// Reduces a pixel-space polyline for drawing. First a radial pass drops points closer than the
/// tolerance to the last kept one (linear, bounds the worst case of the next step), then
/// Douglas–Peucker (iterative, no recursion depth limit) removes points whose perpendicular
/// distance to the simplified line is within `tolerance` pixels. End points are always kept.
/// Only the drawing is simplified; every count in the report is taken from the full data.
public enum PolylineSimplifier {
    /// The tolerance the report uses: half a CSS pixel is below what a screen can show.
    public static let reportTolerance = 0.5

    public static func simplify(_ points: [(x: Double, y: Double)], tolerance: Double) -> [(x: Double, y: Double)] {
        guard points.count > 2 else { return points }
        let tol2 = tolerance * tolerance
        var radial: [(x: Double, y: Double)] = [points[0]]
        radial.reserveCapacity(min(points.count, 1 << 16))
        for p in points.dropFirst().dropLast() {
            let last = radial[radial.count - 1]
            let dx = p.x - last.x, dy = p.y - last.y
            if dx * dx + dy * dy > tol2 { radial.append(p) }
        }
        radial.append(points[points.count - 1])
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
