import BGeoReader

/// One fix of an exported track, as every export format sees it: where and when, what the device
/// measured, and what was decided about it (the engine's decision in `recorded` / `raw` mode, the
/// replay's in `replayed` mode).
public struct TrackPoint: Sendable {
    public var time: Double
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var accuracy: Double?
    public var speed: Double?
    public var heading: Double?
    /// nil for filter lines, which carry no uuid.
    public var uuid: String?
    /// The running odometer after this fix, metres: the dump's recorded value (`recorded`, `raw`),
    /// the replay's (`replayed`).
    public var odometer: Double?
    /// `replayed` only: the dump's own recorded odometer at this fix.
    public var recordedOdometer: Double?
    /// `is_moving` as the fix's row records it (nil: null or absent).
    public var isMoving: Bool?
    public var decision: Decision
    /// Why a fix was rejected (`accuracy`, `time`, `teleport`, or the reason the engine logged).
    public var reason: String?
    /// True when the point is a vertex of the mode's track line: every fix in `raw` mode, the
    /// accepted and adjusted ones otherwise.
    public var onTrack: Bool

    public init(time: Double, latitude: Double, longitude: Double, altitude: Double? = nil, accuracy: Double? = nil,
                speed: Double? = nil, heading: Double? = nil, uuid: String? = nil, odometer: Double? = nil,
                recordedOdometer: Double? = nil, isMoving: Bool? = nil, decision: Decision = .accepted,
                reason: String? = nil, onTrack: Bool = true) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.speed = speed
        self.heading = heading
        self.uuid = uuid
        self.odometer = odometer
        self.recordedOdometer = recordedOdometer
        self.isMoving = isMoving
        self.decision = decision
        self.reason = reason
        self.onTrack = onTrack
    }
}
