import BGeoReader

/// The whole filter pipeline for one run: accuracy gate → teleport check → Kalman → odometer
/// gate, per replay-semantics.md. Feed fixes in trace order; each call is allocation-free.
public struct ReplayPipeline: Sendable {
    public let config: FilterConfig
    public private(set) var teleport: TeleportCheck
    public private(set) var kalman: KalmanSmoother
    public private(set) var odometer: OdometerGate

    public init(config: FilterConfig) {
        self.config = config
        teleport = TeleportCheck(maxSpeed: config.locationFilterMaxSpeed, policy: config.policy)
        kalman = KalmanSmoother(profile: config.kalmanProfile)
        odometer = OdometerGate(accuracyThreshold: config.odometerAccuracyThreshold)
    }

    /// The replayed odometer so far, metres.
    public var odometerTotal: Double { odometer.total }

    /// Runs one fix through every stage and returns the verdict.
    public mutating func process(_ fix: Fix) -> FixDecision {
        let t = fix.time, lat = fix.latitude, lon = fix.longitude
        // Stage 1: the filter is off — accepted as is; no other stage runs (the odometer gate
        // included, so every fix counts toward distance).
        if config.disableLocationFilter {
            let step = odometer.consider(time: t, latitude: lat, longitude: lon, accuracy: fix.accuracy, applyGate: false)
            return FixDecision(index: fix.index, decision: .accepted, latitude: lat, longitude: lon, odometer: odometer.total,
                               distanceAdded: step.added, stepSpeed: step.speed, counted: true)
        }
        // Stage 2: accuracy gate, every policy.
        guard AccuracyGate.passes(accuracy: fix.accuracy, maxAccuracy: config.locationFilterMaxAccuracy) else {
            return FixDecision(index: fix.index, decision: .rejected, reason: .accuracy, latitude: lat, longitude: lon,
                               odometer: odometer.total)
        }
        // PassThrough: no teleport check, no smoothing.
        if config.policy == .passThrough {
            let step = odometer.consider(time: t, latitude: lat, longitude: lon, accuracy: fix.accuracy)
            return FixDecision(index: fix.index, decision: .accepted, latitude: lat, longitude: lon, odometer: odometer.total,
                               distanceAdded: step.added, stepSpeed: step.speed, counted: step.counted)
        }
        // Stage 3: teleport check.
        let cosLat = Geodesy.cosLatitude(lat)
        let verdict = teleport.evaluate(time: t, latitude: lat, longitude: lon, cosLatitude: cosLat)
        let decision: Decision
        switch verdict.outcome {
        case .rejected(let reason):
            return FixDecision(index: fix.index, decision: .rejected, reason: reason, latitude: lat, longitude: lon,
                               odometer: odometer.total, impliedSpeed: verdict.impliedSpeed)
        case .adjusted:
            decision = .adjusted
            teleport.accept(time: t, latitude: verdict.latitude, longitude: verdict.longitude)
        case .pass:
            decision = .accepted
            teleport.accept(time: t, latitude: lat, longitude: lon, cosLatitude: cosLat)
        }
        // Stage 4: Kalman on the position that left the teleport check (its own 300 s reset
        // coincides with the teleport reset: both measure from the previous accepted fix).
        let smoothed = kalman.update(time: t, latitude: verdict.latitude, longitude: verdict.longitude, accuracy: fix.accuracy)
        // Stage 5: odometer gate on the output position.
        let step = odometer.consider(time: t, latitude: smoothed.latitude, longitude: smoothed.longitude, accuracy: fix.accuracy)
        return FixDecision(index: fix.index, decision: decision, latitude: smoothed.latitude, longitude: smoothed.longitude,
                           odometer: odometer.total, distanceAdded: step.added, impliedSpeed: verdict.impliedSpeed,
                           stepSpeed: step.speed, counted: step.counted)
    }
}
