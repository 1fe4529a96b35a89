import BGeoReader

/// Where a replayed fix came from, which is also what the engine decided about it.
public enum FixSource: String, Sendable, CaseIterable {
    /// A queue record of kind `location` (the engine accepted it; position as persisted, i.e. smoothed).
    case queue
    /// A `location` log line (accepted; raw_* position when present).
    case logLocation
    /// A `filter.reject` log line (the engine rejected it).
    case logReject
    /// A `filter.adjust` log line (the engine moved it; the raw position before the move).
    case logAdjust

    /// The engine's own decision for fixes from this source.
    public var recordedDecision: Decision {
        switch self {
        case .queue, .logLocation: return .accepted
        case .logReject: return .rejected
        case .logAdjust: return .adjusted
        }
    }
}

/// One fix as replay sees it. The numeric fields are all the pipeline reads; the strings are
/// carried only for output (the hot loop never touches them). The recorded trace reads its fixes
/// into this type too (with `FixDecision`s built from what the engine logged: `DecidedFix`).
public struct Fix: Sendable {
    // Stored in this order (eight-byte fields, the texts, the optionals, the one-byte fields
    // last) so a million fixes lose no room to padding.
    /// Position in the trace (0-based, after sorting); decisions refer to fixes by it.
    public var index: Int
    /// Seconds since the epoch (UTC).
    public var time: Double
    public var latitude: Double
    public var longitude: Double
    /// Heading (degrees, ≥ 0) and altitude (metres) as the fix's row records them: not replay
    /// inputs, carried for exports (a GPX track point has both). NaN when unknown, which keeps
    /// a million fixes 16 bytes smaller than two optionals would.
    var headingOrNaN: Double = .nan
    var altitudeOrNaN: Double = .nan
    /// `recordedOdometer`, NaN when unknown (8 bytes a fix less than an optional).
    var recordedOdometerOrNaN: Double = .nan
    /// Empty when the fix has none; replay reads filter.reject / filter.adjust lines without
    /// theirs (the recorded trace keeps them, and an empty one the dump states: `statedUUID`).
    public var uuid: String
    /// The timestamp as written in the dump (empty in the recorded trace, which prints `time`).
    public var timestampText: String
    /// The reason a `filter.reject` line gives when it is none of `RejectReason`'s, "unknown" when
    /// it gives none: the recorded trace's exports and map print it as logged. nil otherwise, and
    /// always in replay's trace (which reads `recordedReason`).
    public var loggedReason: String?
    /// Metres; nil when missing or negative (unknown).
    public var accuracy: Double?
    /// m/s as the device reported it; nil when unknown.
    public var speed: Double?
    /// `location_events` (or `queue`) row id, when the fix is in the queue.
    public var rowId: Int64?
    /// `log_entries` row id, when a log line carries the fix.
    public var logId: Int64?
    public var source: FixSource
    /// For `logReject`: the engine's reason as logged.
    public var recordedReason: RejectReason?
    /// True when the position is the raw (pre-Kalman) one: raw_* of a location line, or a
    /// filter line. False for queue-only fixes, whose position is the engine's smoothed output.
    public var isRaw: Bool
    /// `is_moving` as the fix's row records it (nil: null or absent, e.g. a cold start's first
    /// fixes). Not a replay input; carried for exports. One byte, in padding the layout has anyway.
    public var isMoving: Bool?
    /// True when the dump states an empty uuid (a queue row without one, a line's `"uuid": ""`):
    /// the recorded trace keeps such a uuid (`statedUUID`), which replay treats as none.
    var statesEmptyUUID = false

    public var heading: Double? { headingOrNaN.isNaN ? nil : headingOrNaN }
    public var altitude: Double? { altitudeOrNaN.isNaN ? nil : altitudeOrNaN }
    /// The SDK's own running odometer at this fix, when recorded.
    public var recordedOdometer: Double? {
        get { recordedOdometerOrNaN.isNaN ? nil : recordedOdometerOrNaN }
        set { recordedOdometerOrNaN = newValue ?? .nan }
    }

    /// The uuid as the dump states it: nil when it states none, "" when it states an empty one.
    var statedUUID: String? { uuid.isEmpty && !statesEmptyUUID ? nil : uuid }

    public init(index: Int = 0, time: Double, latitude: Double, longitude: Double, accuracy: Double? = nil,
                speed: Double? = nil, recordedOdometer: Double? = nil, source: FixSource = .queue,
                rowId: Int64? = nil, logId: Int64? = nil, uuid: String = "", timestampText: String = "",
                recordedReason: RejectReason? = nil, isRaw: Bool = true, heading: Double? = nil, altitude: Double? = nil,
                isMoving: Bool? = nil) {
        self.index = index
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.speed = speed
        self.source = source
        self.rowId = rowId
        self.logId = logId
        self.uuid = uuid
        self.timestampText = timestampText
        self.recordedReason = recordedReason
        self.isRaw = isRaw
        self.isMoving = isMoving
        recordedOdometerOrNaN = recordedOdometer ?? .nan
        // Same filters as the queue table shows: a negative heading means "unknown".
        headingOrNaN = heading.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } ?? .nan
        altitudeOrNaN = altitude.flatMap { $0.isFinite ? $0 : nil } ?? .nan
    }

    /// Where the fix's evidence lives: its queue row, else its log row.
    public var evidence: EvidenceRef { rowId.map { .queue(rowId: $0) } ?? .log(rowId: logId ?? 0) }

    /// How a person finds this fix in the dump: its uuid, else the log row.
    public var label: String {
        if !uuid.isEmpty { return uuid }
        if let logId { return "log_entries row \(logId) (\(source == .logReject ? "filter.reject" : "filter.adjust"))" }
        if let rowId { return "queue row \(rowId)" }
        return "fix #\(index)"
    }

    /// Orders two fixes with the same time "by row id": by queue row when both are in the queue
    /// (its drain order), else by log row when both are logged (the engine's processing order
    /// across accept/reject/adjust), else by whichever id each has, then by source.
    static func tieOrder(_ a: Fix, _ b: Fix) -> Bool {
        if let ra = a.rowId, let rb = b.rowId, ra != rb { return ra < rb }
        if let la = a.logId, let lb = b.logId, la != lb { return la < lb }
        let pa = a.rowId ?? a.logId ?? 0, pb = b.rowId ?? b.logId ?? 0
        if pa != pb { return pa < pb }
        return a.source.rawValue < b.source.rawValue
    }
}
