import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The stages combined: policies, bypasses, and the engine's totals, on in-memory fixes.
@Suite struct ReplayPipelineTests {
    /// Metres of longitude on the equator, in degrees.
    static func east(_ metres: Double) -> Double { metres / 6_371_008.8 * 180 / Double.pi }

    static func fix(_ t: Double, _ metres: Double, accuracy: Double? = 5) -> Fix {
        Fix(time: t, latitude: 0, longitude: east(metres), accuracy: accuracy, uuid: "u\(Int(t))")
    }

    @Test func disableLocationFilterAcceptsEverythingUnchanged() {
        let config = FilterConfig(disableLocationFilter: true, odometerAccuracyThreshold: 10)
        let fixes = [Self.fix(0, 0, accuracy: nil), Self.fix(0, 100, accuracy: 500), Self.fix(10, 100_000), Self.fix(5, 100_100)]
        let result = ReplayEngine.run(fixes: fixes, config: config)
        #expect(result.decisions.allSatisfy { $0.decision == .accepted && $0.counted })
        #expect(result.decisions.map(\.longitude) == fixes.map(\.longitude))  // no smoothing, no adjustment
        // Raw distances: 100 + 99 900 + 100 (the odometer gate does not run either).
        #expect(abs(result.odometerReplayed - 100_100) < 1e-6)
        #expect(result.zeroTimeSteps == 2)  // 100 m with no time elapsed, 100 m backwards in time
    }

    @Test func passThroughSkipsTeleportAndKalmanButKeepsTheAccuracyGate() {
        let config = FilterConfig(policy: .passThrough)
        let fixes = [Self.fix(0, 0), Self.fix(10, 50_000), Self.fix(20, 50_100, accuracy: 150), Self.fix(20, 50_200)]
        let result = ReplayEngine.run(fixes: fixes, config: config)
        #expect(result.decisions.map(\.decision) == [.accepted, .accepted, .rejected, .accepted])
        #expect(result.decisions[2].reason == .accuracy)
        #expect(result.decisions[1].longitude == fixes[1].longitude)  // unsmoothed
        #expect(result.decisions[3].longitude == fixes[3].longitude)  // same time: no time check under PassThrough
        #expect(abs(result.odometerReplayed - 50_200) < 1e-6)
        #expect(result.impossibleStepCount == 1)  // 50 km in 10 s
        #expect(result.rejectedTeleport == 0 && result.rejectedTime == 0)
    }

    @Test func conservativeRejectsTeleportsAndKeepsTheOldReference() {
        let result = ReplayEngine.run(fixes: [Self.fix(0, 0), Self.fix(10, 5000), Self.fix(20, 500)],
                                      config: FilterConfig())
        #expect(result.decisions.map(\.decision) == [.accepted, .rejected, .accepted])
        #expect(result.decisions[1].reason == .teleport)
        #expect(abs((result.decisions[1].impliedSpeed ?? 0) - 500) < 1e-9)
        // The third fix is judged against the first: 500 m in 20 s = 25 m/s.
        #expect(abs((result.decisions[2].impliedSpeed ?? 0) - 25) < 1e-9)
        #expect(result.rejectedTeleport == 1 && result.accepted == 2)
        #expect(result.fastestTeleports.first?.index == 1)
    }

    @Test func dtZeroOrNegativeIsRejectedForTime() {
        let result = ReplayEngine.run(fixes: [Self.fix(10, 0), Self.fix(10, 10), Self.fix(9, 20), Self.fix(11, 30)],
                                      config: FilterConfig())
        #expect(result.decisions.map(\.reason) == [nil, .time, .time, nil])
        #expect(result.rejectedTime == 2)
    }

    @Test func adjustMovesTheFixAndSmoothsTheAdjustedPosition() {
        let fixes = [Self.fix(0, 0, accuracy: 10), Self.fix(10, 2000, accuracy: 10)]
        let result = ReplayEngine.run(fixes: fixes, config: FilterConfig(policy: .adjust))
        #expect(result.decisions[1].decision == .adjusted)
        #expect(result.adjusted == 1)
        // Adjusted to 600 m, then smoothed: K = (100 + 10·9) / (190 + 100) = 190/290.
        let expected = Self.east(600) * 190 / 290
        #expect(abs(result.decisions[1].longitude - expected) < 1e-12)
        #expect(abs(result.odometerReplayed - 600 * 190 / 290) < 1e-6)
    }

    @Test func gapLongerThan300SecondsRestartsFilterAndReference() {
        let fixes = [Self.fix(0, 0, accuracy: 10), Self.fix(10, 100, accuracy: 10), Self.fix(400, 90_000, accuracy: 10)]
        let result = ReplayEngine.run(fixes: fixes, config: FilterConfig())
        #expect(result.decisions[2].decision == .accepted)  // 225 m/s, but the first after a reset passes
        #expect(result.decisions[2].longitude == fixes[2].longitude)  // Kalman restarted at the fix
        #expect(result.decisions[2].impliedSpeed == nil)
    }

    @Test func odometerGateExcludesNoisyFixesInThePipeline() {
        let fixes = [Self.fix(0, 0, accuracy: 5), Self.fix(10, 300, accuracy: 50), Self.fix(20, 400, accuracy: 5)]
        let result = ReplayEngine.run(fixes: fixes, config: FilterConfig(policy: .passThrough, odometerAccuracyThreshold: 20))
        #expect(result.decisions.map(\.decision) == [.accepted, .accepted, .accepted])
        #expect(result.decisions.map(\.counted) == [true, false, true])
        #expect(abs(result.odometerReplayed - 400) < 1e-6)
        #expect(result.decisions[1].odometer == 0)
    }

    @Test func recordedOdometerSpanAndDiagnosisNameTheResponsibleFix() {
        var fixes: [Fix] = []
        for i in 0..<10 {
            var f = Self.fix(Double(i * 10), Double(i * 100))
            f.recordedOdometer = 1000 + Double(i * 100)
            fixes.append(f)
        }
        // Fix 5 is 20 km off: PassThrough lets it through, doubling back adds ~40 km.
        fixes[5].latitude = 20_000 / 6_371_008.8 * 180 / Double.pi
        fixes[5].uuid = "the-culprit"
        let result = ReplayEngine.run(fixes: fixes, config: FilterConfig(policy: .passThrough))
        #expect(result.odometerRecorded == 900)
        #expect(result.topContributors(limit: 2).map(\.label).contains("the-culprit"))
        #expect(result.diagnosis.contains { $0.contains("more than the recorded") })
        #expect(result.diagnosis.contains { $0.contains("the-culprit") && $0.contains("m/s") })
        // Conservative drops it and agrees with the recording within 5 %.
        let clean = ReplayEngine.run(fixes: fixes, config: FilterConfig())
        #expect(clean.rejectedTeleport == 1)
        #expect(clean.diagnosis.contains { $0.contains("agrees with the recorded") })
        #expect(clean.diagnosis.contains { $0.contains("the-culprit") })  // named as the fastest teleport
    }

    @Test func recordedOdometerJumpIsNamedWhenReplayCountsLess() {
        var fixes: [Fix] = []
        for i in 0..<10 {
            var f = Self.fix(Double(i * 10), Double(i * 100), accuracy: 10)
            // The SDK's odometer jumps 5 km at fix 6 (fixes missing from the dump).
            f.recordedOdometer = Double(i * 100) + (i >= 6 ? 5000 : 0)
            fixes.append(f)
        }
        fixes[6].uuid = "jumped"
        let result = ReplayEngine.run(fixes: fixes, config: FilterConfig())
        #expect(result.odometerRecorded == 5900)
        #expect(result.recordedJumps.first?.index == 6)
        #expect(abs((result.recordedJumps.first?.recorded ?? 0) - 5100) < 1e-9)
        #expect(result.diagnosis.contains { $0.contains("less than the recorded") })
        #expect(result.diagnosis.contains { $0.contains("jumped") && $0.contains("recorded +5.10 km") })
    }

    @Test func noRecordedOdometerIsNil() {
        let result = ReplayEngine.run(fixes: [Self.fix(0, 0), Self.fix(10, 100)], config: FilterConfig())
        #expect(result.odometerRecorded == nil)
        #expect(result.odometerDifferencePercent == nil)
        #expect(result.diagnosis.first?.contains("no odometer values") == true)
    }

    @Test func jsonIsDeterministicAndHasTheContractKeys() throws {
        let fixes = (0..<20).map { Self.fix(Double($0 * 10), Double($0 * 80)) }
        let a = ReplayEngine.run(fixes: fixes, config: FilterConfig()).json(includeDecisions: true)
        let b = ReplayEngine.run(fixes: fixes, config: FilterConfig()).json(includeDecisions: true)
        #expect(JSONWriter(pretty: true).string(a) == JSONWriter(pretty: true).string(b))
        let keys = try #require(a.objectValue?.keys)
        for key in ["config", "configSource", "fixes", "accepted", "adjusted", "rejected", "odometer", "topContributors",
                    "diagnosis", "decisions"] {
            #expect(keys.contains(key), "missing \(key)")
        }
        #expect(a["rejected"]?["teleport"] == .int(0))
        let decision = try #require(a["decisions"]?.arrayValue?.last)
        for key in ["uuid", "timestamp", "decision", "reason", "latitude", "longitude", "odometer"] {
            #expect(decision[key] != nil, "decision missing \(key)")
        }
    }
}
