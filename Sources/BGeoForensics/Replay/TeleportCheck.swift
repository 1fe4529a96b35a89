import BGeoReader
import Foundation

/// Stage 3: the teleport check against the previous accepted fix (skipped under PassThrough).
/// It keeps that fix's position as it left this stage (after any adjustment, before smoothing).
public struct TeleportCheck: Sendable {
    /// What the check decided.
    public enum Outcome: Sendable, Equatable {
        /// Passed unchanged; `reset` when this fix starts a new reference (first fix, or a gap > 300 s).
        case pass(reset: Bool)
        /// Too fast under Adjust: moved to the speed limit along the great circle.
        case adjusted
        /// Rejected: `time` (clock did not advance) or `teleport` (Conservative).
        case rejected(RejectReason)
    }

    /// The verdict with the position that leaves this stage.
    public struct Verdict: Sendable, Equatable {
        public var outcome: Outcome
        public var latitude: Double
        public var longitude: Double
        /// distance(previous, fix) / dt when it was computed (not for first/reset/dt ≤ 0).
        public var impliedSpeed: Double?
    }

    /// A gap longer than this (seconds) restarts the reference (and the Kalman filter).
    public static let resetGap = 300.0

    public let maxSpeed: Double
    /// Conservative rejects, Adjust moves (PassThrough never calls this stage).
    public let policy: FilterPolicy

    private var hasReference = false
    private var refLatitude = 0.0
    private var refLongitude = 0.0
    private var refCosLatitude = 1.0
    private var refTime = 0.0

    public init(maxSpeed: Double, policy: FilterPolicy) {
        self.maxSpeed = maxSpeed
        self.policy = policy
    }

    /// Time of the reference fix, if any.
    public var referenceTime: Double? { hasReference ? refTime : nil }

    /// Judges a fix against the reference. Does not move the reference: call `accept` for fixes
    /// the pipeline accepts.
    @inline(__always)
    public func evaluate(time: Double, latitude: Double, longitude: Double) -> Verdict {
        evaluate(time: time, latitude: latitude, longitude: longitude, cosLatitude: Geodesy.cosLatitude(latitude))
    }

    /// `evaluate` with the fix's cos(latitude) already known.
    @inline(__always)
    public func evaluate(time: Double, latitude: Double, longitude: Double, cosLatitude: Double) -> Verdict {
        guard hasReference else { return Verdict(outcome: .pass(reset: true), latitude: latitude, longitude: longitude) }
        let dt = time - refTime
        if !(dt > 0) {  // also catches NaN
            return Verdict(outcome: .rejected(.time), latitude: latitude, longitude: longitude)
        }
        if dt > TeleportCheck.resetGap {
            return Verdict(outcome: .pass(reset: true), latitude: latitude, longitude: longitude)
        }
        let distance = Geodesy.haversine(refLatitude, refLongitude, cosLat1: refCosLatitude, latitude, longitude,
                                         cosLat2: cosLatitude)
        let speed = distance / dt
        guard speed > maxSpeed else {
            return Verdict(outcome: .pass(reset: false), latitude: latitude, longitude: longitude, impliedSpeed: speed)
        }
        guard policy == .adjust else {
            return Verdict(outcome: .rejected(.teleport), latitude: latitude, longitude: longitude, impliedSpeed: speed)
        }
        let moved = Geodesy.pointToward(refLatitude, refLongitude, latitude, longitude, distance: maxSpeed * dt)
        return Verdict(outcome: .adjusted, latitude: moved.latitude, longitude: moved.longitude, impliedSpeed: speed)
    }

    /// Makes an accepted fix (at the position it left this stage with) the new reference.
    @inline(__always)
    public mutating func accept(time: Double, latitude: Double, longitude: Double) {
        accept(time: time, latitude: latitude, longitude: longitude, cosLatitude: Geodesy.cosLatitude(latitude))
    }

    /// `accept` with the position's cos(latitude) already known.
    @inline(__always)
    public mutating func accept(time: Double, latitude: Double, longitude: Double, cosLatitude: Double) {
        hasReference = true
        refTime = time
        refLatitude = latitude
        refLongitude = longitude
        refCosLatitude = cosLatitude
    }
}
