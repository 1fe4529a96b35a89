/// The kind of a queued record.
public enum RecordKind: String, Sendable {
    case location
    case geofence
}

/// A geofence transition carried by a `geofence` record.
public struct GeofenceInfo: Sendable, Equatable {
    public let identifier: String
    public let action: String
}

/// One row of the upload queue (`location_events`, or LongPing's `queue`), decoded.
/// The record's own JSON text is kept verbatim in `json` for export and re-sync.
public struct QueueRecord: Sendable {
    public var rowId: Int64
    public var uuid: String
    /// The timestamp as written.
    public var timestampText: String
    /// Seconds since the epoch, UTC.
    public var time: Double
    public var kind: RecordKind
    public var createdAt: String?
    /// The record exactly as stored (snake_case wire form); empty when the query skipped text.
    public var json: String
    public var latitude: Double
    public var longitude: Double
    /// Metres; nil when missing or negative (unknown).
    public var accuracy: Double?
    public var speed: Double?
    public var heading: Double?
    public var altitude: Double?
    public var odometer: Double?
    /// nil when the record says null (a cold start's first fixes) or omits it.
    public var isMoving: Bool?
    /// `event` (motionchange, heartbeat, geofence, …) when present.
    public var event: String?
    public var geofence: GeofenceInfo?
    public var activityType: String?
    public var batteryLevel: Double?
    /// LongPing's per-record failed-attempt counter; nil for BGeo.
    public var attempts: Int?

    public init(rowId: Int64, uuid: String, timestampText: String, time: Double, kind: RecordKind,
                createdAt: String? = nil, json: String, latitude: Double, longitude: Double,
                accuracy: Double? = nil, speed: Double? = nil, heading: Double? = nil, altitude: Double? = nil,
                odometer: Double? = nil, isMoving: Bool? = nil, event: String? = nil,
                geofence: GeofenceInfo? = nil, activityType: String? = nil, batteryLevel: Double? = nil,
                attempts: Int? = nil) {
        self.rowId = rowId
        self.uuid = uuid
        self.timestampText = timestampText
        self.time = time
        self.kind = kind
        self.createdAt = createdAt
        self.json = json
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.speed = speed
        self.heading = heading
        self.altitude = altitude
        self.odometer = odometer
        self.isMoving = isMoving
        self.event = event
        self.geofence = geofence
        self.activityType = activityType
        self.batteryLevel = batteryLevel
        self.attempts = attempts
    }

    /// The record parsed as JSON (nil only if the stored text no longer parses).
    public var parsedJSON: JSONValue? { try? JSONParser.parse(json) }
}

/// One queue row before decoding: what re-sync uploads, byte for byte.
public struct QueueRow: Sendable {
    public var rowId: Int64
    public var uuid: String
    public var timestampText: String
    public var kind: RecordKind
    public var createdAt: String?
    public var json: String
    public var attempts: Int?
}

/// Which queue rows to read.
public struct QueueQuery: Sendable {
    public var since: Double?
    public var until: Double?
    public var uuid: String?
    public var limit: Int?
    /// Only this kind; nil for both.
    public var kind: RecordKind?
    /// Whether `json` and `createdAt` are filled in. Scans that only need the decoded fields
    /// (summaries, replay, timeline) skip them: copying every record's text is most of a scan's cost.
    public var includeText: Bool

    public init(since: Double? = nil, until: Double? = nil, uuid: String? = nil, limit: Int? = nil, kind: RecordKind? = nil,
                includeText: Bool = true) {
        self.since = since
        self.until = until
        self.uuid = uuid
        self.limit = limit
        self.kind = kind
        self.includeText = includeText
    }

    /// Every record, decoded fields only (no `json`/`createdAt` text).
    public static let fieldsOnly = QueueQuery(includeText: false)
}
