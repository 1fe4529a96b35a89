import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The report's drawing parts that now see one fix at a time give what the whole-array versions
/// gave: the exact rank of a value, the radial + Douglas–Peucker simplification.
@Suite struct StreamedDrawingTests {
    @Test func rankSelectionIsTheSortedArraysValue() {
        var random = SplitMix64(seed: 5)
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        let spreads: [[Double]] = [
            (0..<50_000).map { _ in uniform() * 1000 - 100 },
            // 200,000 values inside one top-16-bit bucket: every narrowing level is needed.
            (0..<200_000).map { _ in 8 + uniform() * 0.001 },
            (0..<100_000).map { i in Double(i % 7) * 2.5 },
            [3.0],
        ]
        for (k, values) in spreads.enumerated() {
            var selection = RankSelection()
            for v in values { selection.add(v) }
            let sorted = values.sorted()
            var passes = 0
            for rank in Set([0, values.count / 2, min(values.count - 1, Int(Double(values.count) * 0.99)), values.count - 1]) {
                let found = selection.value(atRank: rank) { visit in
                    passes += 1
                    for v in values { visit(v) }
                }
                #expect(found == sorted[rank], "spread \(k) rank \(rank)")
            }
            if k == 1 { #expect(passes > 4, "the narrow spread took only \(passes) passes") }
        }
        #expect(RankSelection().value(atRank: 0) { _ in } == nil)
    }

    /// The simplifier before it was split for streaming (radial pass over the whole array, then
    /// Douglas–Peucker), kept here as the oracle.
    static func wholeArraySimplify(_ points: [(x: Double, y: Double)], tolerance: Double) -> [(x: Double, y: Double)] {
        guard points.count > 2 else { return points }
        let tol2 = tolerance * tolerance
        var radial: [(x: Double, y: Double)] = [points[0]]
        for p in points.dropFirst().dropLast() {
            let last = radial[radial.count - 1]
            let dx = p.x - last.x, dy = p.y - last.y
            if dx * dx + dy * dy > tol2 { radial.append(p) }
        }
        radial.append(points[points.count - 1])
        return PolylineSimplifier.douglasPeucker(radial, tolerance: tolerance)
    }

    @Test func streamedRadialPassGivesTheWholeArraySimplification() {
        var random = SplitMix64(seed: 8)
        for count in [0, 1, 2, 3, 10, 5_000] {
            var x = 100.0, y = 100.0
            let points: [(x: Double, y: Double)] = (0..<count).map { _ in
                x += Double(Int(random.next() % 200) - 100) / 100
                y += Double(Int(random.next() % 200) - 100) / 100
                return (x, y)
            }
            let streamed = PolylineSimplifier.simplify(points, tolerance: 0.5)
            let whole = StreamedDrawingTests.wholeArraySimplify(points, tolerance: 0.5)
            #expect(streamed.map(\.x) == whole.map(\.x) && streamed.map(\.y) == whole.map(\.y), "\(count) points")
            if count > 100 { #expect(streamed.count < count / 2) }
        }
    }
}
