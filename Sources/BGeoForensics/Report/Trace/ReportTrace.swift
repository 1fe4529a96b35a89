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
    public var fixes: [DecidedFix]
    public var geofences: [ReportGeofence]
    /// uuid of the oldest record still in the queue (the next to upload).
    public var queueHeadUUID: String?

    public init(fixes: [DecidedFix] = [], geofences: [ReportGeofence] = [], queueHeadUUID: String? = nil) {
        self.fixes = fixes
        self.geofences = geofences
        self.queueHeadUUID = queueHeadUUID
    }

    public var accepted: [DecidedFix] { fixes.filter { $0.decision.decision != .rejected } }
}
