import BGeoReader

/// Where a row of evidence lives, so the report can link to it (`#queue-12`, `#log-40`).
public enum EvidenceRef: Sendable, Hashable {
    case queue(rowId: Int64)
    case log(rowId: Int64)

    /// The HTML anchor id of the row in the report's tables.
    public var anchor: String {
        switch self {
        case .queue(let id): return "queue-\(id)"
        case .log(let id): return "log-\(id)"
        }
    }

    public var label: String {
        switch self {
        case .queue(let id): return "queue row \(id)"
        case .log(let id): return "log row \(id)"
        }
    }
}

/// One fix of the complete trace with the decision taken on it.
public struct ReportFix: Sendable {
    public var time: Double
    public var uuid: String?
    /// The position the device reported (before smoothing/adjustment when the dump says so).
    public var latitude: Double
    public var longitude: Double
    /// The position that left the pipeline (smoothed or adjusted); equals the raw one for rejections.
    public var outputLatitude: Double
    public var outputLongitude: Double
    public var accuracy: Double?
    public var speed: Double?
    public var heading: Double?
    public var altitude: Double?
    /// The SDK's running odometer at this fix (metres), as its row records it.
    public var odometer: Double?
    /// `is_moving` as the fix's row records it (nil: null or absent).
    public var isMoving: Bool?
    public var decision: Decision
    /// `accuracy` | `time` | `teleport` for rejections.
    public var reason: String?
    public var source: EvidenceRef

    public init(time: Double, uuid: String?, latitude: Double, longitude: Double, outputLatitude: Double? = nil,
                outputLongitude: Double? = nil, accuracy: Double? = nil, speed: Double? = nil, heading: Double? = nil,
                altitude: Double? = nil, odometer: Double? = nil, isMoving: Bool? = nil, decision: Decision = .accepted,
                reason: String? = nil, source: EvidenceRef) {
        self.time = time
        self.uuid = uuid
        self.latitude = latitude
        self.longitude = longitude
        self.outputLatitude = outputLatitude ?? latitude
        self.outputLongitude = outputLongitude ?? longitude
        self.accuracy = accuracy
        self.speed = speed
        self.heading = heading
        self.altitude = altitude
        self.odometer = odometer
        self.isMoving = isMoving
        self.decision = decision
        self.reason = reason
        self.source = source
    }
}

/// A geofence transition (a queued geofence record): an event, not a fix.
public struct ReportGeofence: Sendable {
    public var time: Double
    public var uuid: String
    public var identifier: String
    public var action: String
    public var latitude: Double
    public var longitude: Double
    public var source: EvidenceRef

    public init(time: Double, uuid: String, identifier: String, action: String, latitude: Double, longitude: Double,
                source: EvidenceRef) {
        self.time = time
        self.uuid = uuid
        self.identifier = identifier
        self.action = action
        self.latitude = latitude
        self.longitude = longitude
        self.source = source
    }
}

/// The complete trace as the report and GPX export see it: every fix in time order with its
/// decision, geofence events, and which fix is the queue head (the oldest pending record).
public struct ReportTrace: Sendable {
    public var fixes: [ReportFix]
    public var geofences: [ReportGeofence]
    /// uuid of the oldest record still in the queue (the next to upload).
    public var queueHeadUUID: String?

    public init(fixes: [ReportFix] = [], geofences: [ReportGeofence] = [], queueHeadUUID: String? = nil) {
        self.fixes = fixes
        self.geofences = geofences
        self.queueHeadUUID = queueHeadUUID
    }

    public var accepted: [ReportFix] { fixes.filter { $0.decision != .rejected } }
}
