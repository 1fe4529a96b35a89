import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSanitize
@testable import BGeoSimulation

extension SplitMix64: RandomNumberGenerator {}

/// The secret shift must be invisible to the replay arithmetic: same decisions, bit-identical
/// odometers and implied speeds, under every policy and Kalman profile.
@Suite struct CoordinateTransformTests {
    /// A drive with noise, poor-accuracy fixes, teleports and a long gap, around `longitude`.
    static func trace(latitude: Double = 52.2297, longitude: Double = 21.0122, spread: Double = 0.05, count: Int = 600,
                      seed: UInt64 = 3) -> [Fix] {
        var rng = SplitMix64(seed: seed)
        var fixes: [Fix] = []
        var lat = latitude, lon = longitude, t = 1_785_000_000.0
        for i in 0..<count {
            t += i == count / 2 ? 900 : rng.double(2...15)
            lat += rng.double(-spread...spread) / 100
            lon += rng.double(-spread...spread) / 100
            var fixLat = lat, fixLon = lon
            if i % 41 == 7 { fixLat += 0.02; fixLon -= 0.03 }  // a teleport
            let accuracy = i % 13 == 3 ? 250 : rng.double(3...40)
            fixes.append(Fix(time: t, latitude: fixLat, longitude: fixLon, accuracy: accuracy, uuid: "f-\(i)"))
        }
        return fixes
    }

    static func moved(_ fixes: [Fix], _ transform: CoordinateTransform) -> [Fix] {
        fixes.map { fix in
            var copy = fix
            copy.latitude = transform.latitude(fix.latitude)
            copy.longitude = transform.longitude(fix.longitude, latitude: fix.latitude)
            return copy
        }
    }

    static func extent(_ fixes: [Fix]) -> CoordinateExtent {
        var extent = CoordinateExtent()
        for fix in fixes { extent.add(longitude: fix.longitude) }
        return extent
    }

    static let configs: [FilterConfig] = [
        FilterConfig(locationFilterMaxAccuracy: 100, locationFilterMaxSpeed: 60, policy: .conservative, kalmanProfile: .default),
        FilterConfig(locationFilterMaxAccuracy: 50, locationFilterMaxSpeed: 30, policy: .passThrough, kalmanProfile: .aggressive),
        FilterConfig(locationFilterMaxAccuracy: 100, locationFilterMaxSpeed: 60, policy: .conservative, kalmanProfile: .conservative,
                     odometerAccuracyThreshold: 20),
    ]

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func exactShiftKeepsEveryReplayNumberBitForBit(seed: UInt64) {
        let fixes = Self.trace()
        var rng = SplitMix64(seed: seed)
        let transform = CoordinateTransform.shift(for: Self.extent(fixes), using: &rng)
        guard case .shift(_, let delta, let exact) = transform.kind else {
            Issue.record("not a shift")
            return
        }
        #expect(exact)
        #expect(abs(delta) >= 1 || transform.latitude(1) == -1, "the trace must actually move")
        let shifted = Self.moved(fixes, transform)
        #expect(shifted.allSatisfy { abs($0.longitude - 21.0122) > 0.5 || $0.latitude < 0 })
        for config in Self.configs {
            let a = ReplayEngine.run(fixes: fixes, config: config), b = ReplayEngine.run(fixes: shifted, config: config)
            #expect(a.odometerReplayed == b.odometerReplayed)
            #expect(a.decisions.map(\.decision) == b.decisions.map(\.decision))
            #expect(a.decisions.map(\.reason) == b.decisions.map(\.reason))
            #expect(a.decisions.map(\.odometer) == b.decisions.map(\.odometer))
            #expect(a.decisions.map(\.impliedSpeed) == b.decisions.map(\.impliedSpeed))
            #expect(a.accepted > 0 && a.rejectedAccuracy > 0, "the trace exercises the stages")
        }
        #expect(ReplayEngine.run(fixes: fixes, config: Self.configs[0]).rejectedTeleport > 0)
        // Adjust moves fixes along great circles computed from absolute longitudes: equal up to rounding.
        let adjust = FilterConfig(policy: .adjust)
        let a = ReplayEngine.run(fixes: fixes, config: adjust), b = ReplayEngine.run(fixes: shifted, config: adjust)
        #expect(a.adjusted > 0)
        #expect(a.decisions.map(\.decision) == b.decisions.map(\.decision))
        #expect(abs(a.odometerReplayed - b.odometerReplayed) < 1e-6)
    }

    @Test func aTraceAcrossLongitudeZeroGetsAnApproximateShiftThatStaysWithinRounding() {
        let fixes = Self.trace(latitude: 51.5, longitude: 0.0, spread: 0.2)
        #expect(fixes.contains { $0.longitude < 0 } && fixes.contains { $0.longitude > 0 })
        var rng = SplitMix64(seed: 11)
        let transform = CoordinateTransform.shift(for: Self.extent(fixes), using: &rng)
        guard case .shift(_, _, let exact) = transform.kind else { Issue.record("not a shift"); return }
        #expect(!exact)
        let shifted = Self.moved(fixes, transform)
        #expect(shifted.allSatisfy { (-180...180).contains($0.longitude) })
        for config in Self.configs {
            let a = ReplayEngine.run(fixes: fixes, config: config), b = ReplayEngine.run(fixes: shifted, config: config)
            #expect(a.decisions.map(\.decision) == b.decisions.map(\.decision))
            #expect(abs(a.odometerReplayed - b.odometerReplayed) < 1e-5, "\(a.odometerReplayed) vs \(b.odometerReplayed)")
        }
    }

    @Test func theShiftNeverWrapsTheTraceAroundTheAntimeridian() {
        let fixes = Self.trace(latitude: -17.7, longitude: 178.4, spread: 0.3)
        for seed in UInt64(0)..<50 {
            var rng = SplitMix64(seed: seed)
            let transform = CoordinateTransform.shift(for: Self.extent(fixes), using: &rng)
            let shifted = Self.moved(fixes, transform).map(\.longitude)
            #expect(shifted.allSatisfy { (-180...180).contains($0) })
            let spread = (shifted.max() ?? 0) - (shifted.min() ?? 0)
            let original = fixes.map(\.longitude)
            #expect(abs(spread - ((original.max() ?? 0) - (original.min() ?? 0))) < 1e-9)
        }
    }

    @Test func theHalfTurnSwapsHemispheresAndTurnsHeadings() {
        let turn = CoordinateTransform(kind: .shift(halfTurn: true, delta: 0, exact: true))
        #expect(turn.latitude(52.25) == -52.25)
        #expect(turn.longitude(21.5, latitude: 52.25) == -21.5)
        #expect(turn.heading(10) == 190)
        #expect(turn.heading(270) == 90)
        #expect(turn.heading(-1) == -1, "unknown heading stays unknown")
        let plain = CoordinateTransform(kind: .shift(halfTurn: false, delta: 3, exact: true))
        #expect(plain.heading(10) == 10)
        // Haversine cannot tell: both points turned together.
        let d0 = Geodesy.haversine(52.1, 21.0, 52.2, 21.3)
        let d1 = Geodesy.haversine(turn.latitude(52.1), turn.longitude(21.0, latitude: 52.1),
                                   turn.latitude(52.2), turn.longitude(21.3, latitude: 52.2))
        #expect(d0 == d1)
    }

    @Test func coarsenSnapsToAGridOfAboutTheGivenSize() {
        let grid = CoordinateTransform.coarsen(metres: 500)
        let lat = grid.latitude(52.229_713), lon = grid.longitude(21.012_228, latitude: 52.229_713)
        #expect(Geodesy.haversine(52.229_713, 21.012_228, lat, lon) < 500)
        #expect(grid.latitude(52.2301) == lat, "a point 40 m away falls in the same cell")
        let step = 500 / CoordinateTransform.metresPerDegree
        #expect(abs((lat / step).rounded() * step - lat) < 1e-12)
        #expect(grid.heading(33) == 33)
    }

    @Test func policiesParseFromTheCommandLine() {
        #expect(CoordinatePolicy(argument: "keep") == .keep)
        #expect(CoordinatePolicy(argument: "shift") == .shift)
        #expect(CoordinatePolicy(argument: "coarsen=250") == .coarsen(metres: 250))
        #expect(CoordinatePolicy(argument: "coarsen=0") == nil)
        #expect(CoordinatePolicy(argument: "coarsen=nan") == nil)
        #expect(CoordinatePolicy(argument: "shifted") == nil)
        #expect(CoordinatePolicy.coarsen(metres: 250).description == "coarsen=250")
    }
}
