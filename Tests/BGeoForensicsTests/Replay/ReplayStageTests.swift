import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Each pipeline stage alone, against numbers computed by hand (or independently in Python with
/// the spherical Vincenty formula, which shares no code path with haversine).
@Suite struct ReplayStageTests {
    // MARK: Geodesy

    @Test func haversineKnownCityPairs() {
        // Warsaw (52.2297, 21.0122) – Kraków (50.0647, 19.9450): 251 976.926 m on R = 6 371 008.8 m.
        let wk = Geodesy.haversine(52.2297, 21.0122, 50.0647, 19.9450)
        #expect(abs(wk - 251_976.925_960) < 1e-3)
        // Paris (48.8566, 2.3522) – London (51.5074, −0.1278): 343 556.535 m.
        let pl = Geodesy.haversine(48.8566, 2.3522, 51.5074, -0.1278)
        #expect(abs(pl - 343_556.534_881) < 1e-3)
        // Symmetric, zero on the same point, and one degree of the equator is R·π/180.
        #expect(Geodesy.haversine(50.0647, 19.9450, 52.2297, 21.0122) == wk)
        #expect(Geodesy.haversine(10, 10, 10, 10) == 0)
        #expect(abs(Geodesy.haversine(0, 0, 0, 1) - 6_371_008.8 * Double.pi / 180) < 1e-6)
    }

    @Test func haversineAntipodesDoNotProduceNaN() {
        let d = Geodesy.haversine(0, 0, 0, 180)
        #expect(d.isFinite)
        #expect(abs(d - Double.pi * 6_371_008.8) < 1e-3)
    }

    @Test func pointTowardLandsOnTheGreatCircleAtTheDistance() {
        // Along the equator the answer is exact by hand: 600 m = 600 / R rad of longitude.
        let e = Geodesy.pointToward(0, 0, 0, 1, distance: 600)
        #expect(abs(e.latitude) < 1e-12)
        #expect(abs(e.longitude - 0.005_395_922_182_347_228) < 1e-12)
        // Warsaw → Kraków, 6 km: on the great circle (d(W,P) + d(P,K) = d(W,K)) at exactly 6 km.
        let p = Geodesy.pointToward(52.2297, 21.0122, 50.0647, 19.9450, distance: 6000)
        #expect(abs(Geodesy.haversine(52.2297, 21.0122, p.latitude, p.longitude) - 6000) < 1e-6)
        let total = Geodesy.haversine(52.2297, 21.0122, 50.0647, 19.9450)
        let viaP = 6000 + Geodesy.haversine(p.latitude, p.longitude, 50.0647, 19.9450)
        #expect(abs(viaP - total) < 1e-6)
    }

    @Test func destinationAlongBearing() {
        // Due north 1° of arc from the equator.
        let n = Geodesy.destination(0, 0, bearing: 0, distance: 6_371_008.8 * Double.pi / 180)
        #expect(abs(n.latitude - 1) < 1e-12)
        #expect(abs(n.longitude) < 1e-12)
        let b = Geodesy.initialBearing(0, 0, 0, 1)
        #expect(abs(b - Double.pi / 2) < 1e-12)
    }

    // MARK: Accuracy gate

    @Test func accuracyGate() {
        #expect(AccuracyGate.passes(accuracy: 100, maxAccuracy: 100))  // equal passes: only "greater" is rejected
        #expect(!AccuracyGate.passes(accuracy: 100.01, maxAccuracy: 100))
        #expect(!AccuracyGate.passes(accuracy: nil, maxAccuracy: 100))
        #expect(!AccuracyGate.passes(accuracy: -1, maxAccuracy: 100))
        #expect(!AccuracyGate.passes(accuracy: .nan, maxAccuracy: 100))
        #expect(AccuracyGate.passes(accuracy: 0, maxAccuracy: 100))
    }

    // MARK: Teleport check

    @Test func teleportFirstFixPassesThenTimeAndSpeed() {
        var check = TeleportCheck(maxSpeed: 60, policy: .conservative)
        let first = check.evaluate(time: 100, latitude: 0, longitude: 0)
        #expect(first.outcome == .pass(reset: true))
        check.accept(time: 100, latitude: 0, longitude: 0)
        // Same time and earlier: the clock did not advance.
        #expect(check.evaluate(time: 100, latitude: 0, longitude: 0.0001).outcome == .rejected(.time))
        #expect(check.evaluate(time: 99, latitude: 0, longitude: 0.0001).outcome == .rejected(.time))
        // 1° of equator in 10 s ≈ 11 119 m/s: a teleport.
        let far = check.evaluate(time: 110, latitude: 0, longitude: 1)
        #expect(far.outcome == .rejected(.teleport))
        #expect(abs((far.impliedSpeed ?? 0) - 6_371_008.8 * Double.pi / 180 / 10) < 1e-6)
        // 500 m in 10 s = 50 m/s passes with its speed.
        let lon500 = 500 / 6_371_008.8 * 180 / Double.pi
        let ok = check.evaluate(time: 110, latitude: 0, longitude: lon500)
        #expect(ok.outcome == .pass(reset: false))
        #expect(abs((ok.impliedSpeed ?? 0) - 50) < 1e-9)
    }

    @Test func adjustLandsExactlyMaxSpeedTimesDtFromTheReference() {
        var check = TeleportCheck(maxSpeed: 60, policy: .adjust)
        check.accept(time: 0, latitude: 52.2297, longitude: 21.0122)
        let v = check.evaluate(time: 100, latitude: 50.0647, longitude: 19.9450)
        #expect(v.outcome == .adjusted)
        let landed = Geodesy.haversine(52.2297, 21.0122, v.latitude, v.longitude)
        #expect(abs(landed - 60 * 100) < 1e-6)
        // On the way to the fix, not anywhere on the 6 km circle.
        let rest = Geodesy.haversine(v.latitude, v.longitude, 50.0647, 19.9450)
        #expect(abs(landed + rest - Geodesy.haversine(52.2297, 21.0122, 50.0647, 19.9450)) < 1e-6)
    }

    @Test func teleportReferenceResetsAfterGapsLongerThan300Seconds() {
        var check = TeleportCheck(maxSpeed: 60, policy: .conservative)
        check.accept(time: 0, latitude: 0, longitude: 0)
        // Exactly 300 s is not a reset: 111 km in 300 s is 370 m/s.
        #expect(check.evaluate(time: 300, latitude: 0, longitude: 1).outcome == .rejected(.teleport))
        #expect(check.evaluate(time: 300.001, latitude: 0, longitude: 1).outcome == .pass(reset: true))
    }

    // MARK: Kalman

    @Test func kalmanGainByHandForTwoFixes() {
        var k = KalmanSmoother(profile: .default)
        let first = k.update(time: 0, latitude: 52.0, longitude: 21.0, accuracy: 10)
        #expect(first.latitude == 52.0 && first.longitude == 21.0)
        #expect(k.variance == 100)  // (a·r)² = (10·1)²
        // P = 100 + 10·(3·1)² = 190; K = 190 / (190 + 5²) = 190/215.
        let second = k.update(time: 10, latitude: 52.001, longitude: 21.002, accuracy: 5)
        #expect(abs(k.lastGain - 190.0 / 215.0) < 1e-15)
        #expect(abs(second.latitude - 52.000_883_720_930_23) < 1e-12)
        #expect(abs(second.longitude - 21.001_767_441_860_466) < 1e-12)
        #expect(abs(k.variance - 22.093_023_255_813_95) < 1e-9)
    }

    @Test func kalmanProfilesScaleNoise() {
        var aggressive = KalmanSmoother(profile: .aggressive)
        _ = aggressive.update(time: 0, latitude: 0, longitude: 0, accuracy: 10)
        #expect(aggressive.variance == 25)  // (10·0.5)²
        _ = aggressive.update(time: 10, latitude: 0.001, longitude: 0, accuracy: 10)
        // P = 25 + 10·(3·2)² = 385; K = 385 / (385 + 25).
        #expect(abs(aggressive.lastGain - 385.0 / 410.0) < 1e-15)

        var conservative = KalmanSmoother(profile: .conservative)
        _ = conservative.update(time: 0, latitude: 0, longitude: 0, accuracy: 0.2)  // floor: a = 1
        #expect(conservative.variance == 4)  // (1·2)²
        _ = conservative.update(time: 4, latitude: 0.001, longitude: 0, accuracy: 0.5)
        // P = 4 + 4·(3·0.5)² = 13; K = 13 / (13 + 4).
        #expect(abs(conservative.lastGain - 13.0 / 17.0) < 1e-15)
    }

    @Test func kalmanResetsAfter300Seconds() {
        var k = KalmanSmoother(profile: .default)
        _ = k.update(time: 0, latitude: 10, longitude: 10, accuracy: 10)
        _ = k.update(time: 10, latitude: 10.001, longitude: 10.001, accuracy: 10)
        #expect(k.lastGain > 0)
        let after = k.update(time: 311, latitude: 11, longitude: 12, accuracy: 20)
        #expect(after.latitude == 11 && after.longitude == 12)
        #expect(k.variance == 400)
        #expect(k.lastGain == 0)
        // 300 s exactly still smooths.
        var k2 = KalmanSmoother(profile: .default)
        _ = k2.update(time: 0, latitude: 10, longitude: 10, accuracy: 10)
        let kept = k2.update(time: 300, latitude: 11, longitude: 10, accuracy: 10)
        #expect(kept.latitude != 11)
    }

    // MARK: Odometer gate

    @Test func odometerGateAnchorRule() {
        var gate = OdometerGate(accuracyThreshold: 20)
        let a = gate.consider(time: 0, latitude: 0, longitude: 0, accuracy: 5)
        #expect(a.counted && a.added == 0)
        // Too inaccurate: adds nothing and does not become the anchor.
        let b = gate.consider(time: 10, latitude: 0, longitude: 0.01, accuracy: 25)
        #expect(!b.counted && b.added == 0)
        // C measures from A, not from B.
        let c = gate.consider(time: 20, latitude: 0, longitude: 0.002, accuracy: 20)
        let expected = Geodesy.haversine(0, 0, 0, 0.002)
        #expect(c.counted && abs(c.added - expected) < 1e-9)
        #expect(abs((c.speed ?? 0) - expected / 20) < 1e-9)
        #expect(abs(gate.total - expected) < 1e-9)
        // Threshold 0 disables the gate: any accuracy counts.
        var open = OdometerGate(accuracyThreshold: 0)
        _ = open.consider(time: 0, latitude: 0, longitude: 0, accuracy: 5)
        #expect(open.consider(time: 1, latitude: 0, longitude: 0.001, accuracy: 999).counted)
    }

    // MARK: Config

    @Test func filterConfigReadsSDKKeysCaseInsensitively() throws {
        let object = try #require(try JSONParser.parse("""
            {"LOCATIONFILTERPOLICY": "passthrough", "kalmanprofile": "Aggressive", "locationFilterMaxSpeed": "45",
             "locationFilterMaxAccuracy": 30, "odometerAccuracyThreshold": 15.5, "disableLocationFilter": "false"}
            """).objectValue)
        let config = FilterConfig(config: SDKConfig(object))
        #expect(config.policy == .passThrough)
        #expect(config.kalmanProfile == .aggressive)
        #expect(config.locationFilterMaxSpeed == 45)
        #expect(config.locationFilterMaxAccuracy == 30)
        #expect(config.odometerAccuracyThreshold == 15.5)
        #expect(config.disableLocationFilter == false)
        #expect(FilterConfig(config: SDKConfig()) == FilterConfig())
        #expect(FilterPolicy(parsing: "ADJUST") == .adjust)
        #expect(FilterPolicy(parsing: "Aggressive") == .conservative)  // unknown → Conservative
        #expect(KalmanProfile(parsing: "whatever") == .default)
        let notes = FilterConfig.notes(for: SDKConfig(["locationFilterPolicy": "Fast", "locationFilterMaxSpeed": "abc"]))
        #expect(notes.contains { $0.contains("Fast") && $0.contains("Conservative") })
        #expect(notes.contains { $0.contains("locationFilterMaxSpeed") && $0.contains("60") })
        #expect(FilterConfig(config: SDKConfig(["locationFilterMaxSpeed": "abc"])).locationFilterMaxSpeed == 60)
    }

    @Test func filterConfigJSONUsesSDKNames() {
        let json = FilterConfig(policy: .adjust).json
        #expect(json.objectValue?.keys == FilterConfig.keys)
        #expect(json["locationFilterPolicy"] == .string("Adjust"))
        #expect(json["kalmanProfile"] == .string("DEFAULT"))
    }
}
