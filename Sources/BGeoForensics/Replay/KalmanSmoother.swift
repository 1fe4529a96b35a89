import BGeoReader

/// Stage 4: the scalar, accuracy-weighted Kalman filter shared by latitude and longitude
/// (skipped under PassThrough). Arithmetic exactly as replay-semantics.md gives it.
public struct KalmanSmoother: Sendable {
    /// Base process noise Q, m/s.
    public static let processNoise = 3.0
    /// A gap longer than this (seconds) restarts the filter at the new fix.
    public static let resetGap = 300.0

    public let profile: KalmanProfile
    private let q: Double
    private let r: Double

    public private(set) var isInitialized = false
    public private(set) var latitude = 0.0
    public private(set) var longitude = 0.0
    /// Variance P, m².
    public private(set) var variance = 0.0
    public private(set) var lastTime = 0.0
    /// Gain K of the last update (0 after a reset), for tests and diagnostics.
    public private(set) var lastGain = 0.0

    public init(profile: KalmanProfile) {
        self.profile = profile
        (q, r) = profile.scales
    }

    /// Feeds one fix (accuracy in metres; unknown counts as 1 m, the floor) and returns the
    /// smoothed position.
    @inline(__always)
    public mutating func update(time: Double, latitude lat: Double, longitude lon: Double,
                                accuracy: Double?) -> (latitude: Double, longitude: Double) {
        let a = max(accuracy ?? 1.0, 1.0)
        let measurementVariance = (a * r) * (a * r)
        let dt = time - lastTime
        if !isInitialized || dt > KalmanSmoother.resetGap {
            isInitialized = true
            latitude = lat
            longitude = lon
            variance = measurementVariance
            lastTime = time
            lastGain = 0
            return (lat, lon)
        }
        let noise = KalmanSmoother.processNoise * q
        variance += max(dt, 0) * noise * noise
        let k = variance / (variance + measurementVariance)
        latitude += k * (lat - latitude)
        longitude += k * (lon - longitude)
        variance = (1 - k) * variance
        lastTime = time
        lastGain = k
        return (latitude, longitude)
    }
}
