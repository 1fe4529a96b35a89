import BGeoReader
import Foundation

/// Stage 5: decides whether an accepted fix advances the odometer, and by how much.
public struct OdometerGate: Sendable {
    /// What one candidate did.
    public struct Step: Sendable, Equatable {
        /// False when the gate excluded the fix (it neither adds distance nor becomes the anchor).
        public var counted: Bool
        /// Metres added (0 for the first counting fix).
        public var added: Double
        /// added / seconds since the anchor, when time advanced.
        public var speed: Double?
    }

    /// Metres; 0 (or less) disables the gate.
    public let accuracyThreshold: Double
    /// The running total, metres.
    public private(set) var total = 0.0

    private var hasAnchor = false
    private var anchorLatitude = 0.0
    private var anchorLongitude = 0.0
    private var anchorCosLatitude = 1.0
    private var anchorTime = 0.0

    public init(accuracyThreshold: Double) {
        self.accuracyThreshold = accuracyThreshold
    }

    /// Considers an accepted fix at its output position. With `applyGate` false (filter disabled)
    /// every fix counts. When the gate is on, a fix whose accuracy is greater than the threshold —
    /// or unknown, so not provably within it — does not count.
    @inline(__always)
    public mutating func consider(time: Double, latitude: Double, longitude: Double, accuracy: Double?,
                                  applyGate: Bool = true) -> Step {
        if applyGate, accuracyThreshold > 0 {
            guard let accuracy, accuracy >= 0, accuracy <= accuracyThreshold else {
                return Step(counted: false, added: 0, speed: nil)
            }
        }
        let cosLatitude = Geodesy.cosLatitude(latitude)  // once: for the distance and as the next anchor's
        var added = 0.0
        var speed: Double?
        if hasAnchor {
            added = Geodesy.haversine(anchorLatitude, anchorLongitude, cosLat1: anchorCosLatitude, latitude, longitude,
                                      cosLat2: cosLatitude)
            let dt = time - anchorTime
            if dt > 0 { speed = added / dt }
            total += added
        }
        hasAnchor = true
        anchorLatitude = latitude
        anchorLongitude = longitude
        anchorCosLatitude = cosLatitude
        anchorTime = time
        return Step(counted: true, added: added, speed: speed)
    }
}
