import BGeoReader

/// What the pipeline did with a fix.
public enum Decision: String, Sendable, CaseIterable {
    case accepted, adjusted, rejected
}

/// Why a fix was rejected.
public enum RejectReason: String, Sendable, CaseIterable {
    /// Accuracy unknown or worse than locationFilterMaxAccuracy.
    case accuracy
    /// The clock did not advance since the previous accepted fix.
    case time
    /// Implied speed above locationFilterMaxSpeed (Conservative).
    case teleport
}

/// The pipeline's verdict on one fix. A plain value (no strings) so a million of them cost
/// one allocation.
public struct FixDecision: Sendable, Equatable {
    // The one-byte fields are stored last, after the optionals, so they take no room of their own.
    /// The fix's `index` in the trace.
    public var index: Int
    /// Output position: smoothed (or adjusted, or as is) for accepted fixes; the input position for rejected ones.
    public var latitude: Double
    public var longitude: Double
    /// The replayed odometer after this fix, metres.
    public var odometer: Double
    /// Metres this fix added to the odometer (0 when it did not count).
    public var distanceAdded: Double
    /// The teleport check's speed (distance from the previous accepted fix / dt), m/s, when computed.
    public var impliedSpeed: Double?
    /// The odometer step's speed (distanceAdded / seconds since the anchor), m/s, when the fix counted
    /// and time advanced.
    public var stepSpeed: Double?
    public var decision: Decision
    /// Set for rejections only.
    public var reason: RejectReason?
    /// True when the fix counted for the odometer (accepted and through the odometer gate).
    public var counted: Bool

    public init(index: Int, decision: Decision, reason: RejectReason? = nil, latitude: Double, longitude: Double,
                odometer: Double, distanceAdded: Double = 0, impliedSpeed: Double? = nil, stepSpeed: Double? = nil,
                counted: Bool = false) {
        self.index = index
        self.decision = decision
        self.reason = reason
        self.latitude = latitude
        self.longitude = longitude
        self.odometer = odometer
        self.distanceAdded = distanceAdded
        self.impliedSpeed = impliedSpeed
        self.stepSpeed = stepSpeed
        self.counted = counted
    }

    /// `accepted`, `adjusted`, or `rejected (teleport)`.
    public var label: String {
        if let reason { return "\(decision.rawValue) (\(reason.rawValue))" }
        return decision.rawValue
    }
}
