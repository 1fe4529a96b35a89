/// The engine's location filter, Kalman smoothing and odometer as the simulated device ran
/// them, following replay-semantics.md step by step, so that a replay of a simulated dump's
/// raw fixes with the recorded config gives back the recorded decisions and odometer.
struct EnginePipeline {
    enum Policy { case conservative, adjust, passThrough }

    enum Decision {
        case accepted
        case adjusted(impliedSpeed: Double)
        case rejected(reason: String, impliedSpeed: Double?, limit: Double)
    }

    struct Output {
        var decision: Decision
        /// Position after the filter, before smoothing.
        var filteredLatitude: Double
        var filteredLongitude: Double
        /// Output position (smoothed).
        var latitude: Double
        var longitude: Double
        var odometer: Double
    }

    var disabled = false
    var maxAccuracy = 100.0
    var maxSpeed = 60.0
    var policy = Policy.conservative
    var profile = (q: 1.0, r: 1.0)
    var odometerAccuracyThreshold = 0.0

    private var reference: (lat: Double, lon: Double, t: Double)?
    private var kalman: (lat: Double, lon: Double, p: Double, t: Double)?
    private var anchor: (lat: Double, lon: Double)?
    private(set) var odometer = 0.0

    init(config: JSONObject) {
        disabled = config["disableLocationFilter"]?.boolValue ?? false
        maxAccuracy = config["locationFilterMaxAccuracy"]?.doubleValue ?? 100
        maxSpeed = config["locationFilterMaxSpeed"]?.doubleValue ?? 60
        switch config["locationFilterPolicy"]?.stringValue?.lowercased() {
        case "adjust": policy = .adjust
        case "passthrough": policy = .passThrough
        default: policy = .conservative
        }
        switch config["kalmanProfile"]?.stringValue?.uppercased() {
        case "AGGRESSIVE": profile = (2.0, 0.5)
        case "CONSERVATIVE": profile = (0.5, 2.0)
        default: profile = (1.0, 1.0)
        }
        odometerAccuracyThreshold = config["odometerAccuracyThreshold"]?.doubleValue ?? 0
    }

    /// Runs one raw fix through the stages; the odometer advances only for accepted fixes.
    mutating func process(t: Double, latitude: Double, longitude: Double, accuracy: Double?) -> Output {
        if disabled {
            countOdometer(latitude, longitude, accuracy: accuracy)
            return Output(decision: .accepted, filteredLatitude: latitude, filteredLongitude: longitude,
                          latitude: latitude, longitude: longitude, odometer: odometer)
        }
        func reject(_ reason: String, _ speed: Double?, _ limit: Double) -> Output {
            Output(decision: .rejected(reason: reason, impliedSpeed: speed, limit: limit), filteredLatitude: latitude,
                   filteredLongitude: longitude, latitude: latitude, longitude: longitude, odometer: odometer)
        }
        guard let accuracy, accuracy >= 0, accuracy <= maxAccuracy else { return reject("accuracy", nil, maxAccuracy) }
        var lat = latitude, lon = longitude
        var decision = Decision.accepted
        var reset = reference == nil
        if let ref = reference, policy != .passThrough {
            let dt = t - ref.t
            if dt <= 0 { return reject("time", nil, maxSpeed) }
            if dt > 300 {
                reset = true
            } else {
                let v = GeoMath.distance(ref.lat, ref.lon, lat, lon) / dt
                if v > maxSpeed {
                    if policy == .conservative { return reject("teleport", v, maxSpeed) }
                    let bearing = GeoMath.bearing(ref.lat, ref.lon, lat, lon)
                    (lat, lon) = GeoMath.destination(ref.lat, ref.lon, bearing: bearing, metres: maxSpeed * dt)
                    decision = .adjusted(impliedSpeed: v)
                }
            }
        } else if let ref = reference, t - ref.t > 300 {
            reset = true
        }
        reference = (lat, lon, t)
        var outLat = lat, outLon = lon
        if policy != .passThrough {
            let a = max(accuracy, 1.0) * profile.r
            if reset || kalman == nil {
                kalman = (lat, lon, a * a, t)
            } else if var k = kalman {
                let dt = max(0, t - k.t)
                let qn = 3.0 * profile.q
                k.p += dt * qn * qn
                let gain = k.p / (k.p + a * a)
                k.lat += gain * (lat - k.lat)
                k.lon += gain * (lon - k.lon)
                k.p = (1 - gain) * k.p
                k.t = t
                kalman = k
            }
            if let k = kalman { outLat = k.lat; outLon = k.lon }
        }
        countOdometer(outLat, outLon, accuracy: accuracy)
        return Output(decision: decision, filteredLatitude: lat, filteredLongitude: lon, latitude: outLat,
                      longitude: outLon, odometer: odometer)
    }

    private mutating func countOdometer(_ lat: Double, _ lon: Double, accuracy: Double?) {
        if odometerAccuracyThreshold > 0, (accuracy ?? .infinity) > odometerAccuracyThreshold { return }
        if let anchor { odometer += GeoMath.distance(anchor.lat, anchor.lon, lat, lon) }
        anchor = (lat, lon)
    }
}
