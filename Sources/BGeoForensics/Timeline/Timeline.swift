import BGeoReader

/// A dump's history, reconstructed from its log (oldest first) and queue, and diagnosed:
/// what the engine did (events), every upload attempt and how it ended, where tracking went
/// silent, and what a support engineer should conclude (findings). Text is already redacted
/// by the builder's redactor.
public struct Timeline: Sendable {
    public var dumpName: String
    /// The evidence files with their sizes and SHA-256, so a pasted timeline names what it read.
    public var inputs: [DumpInput] = []
    /// Set when `sanitize` wrote this dump: what was changed (one line).
    public var sanitized: String?
    public var format: DumpFormat
    /// The policy the history was checked against.
    public var policy: UploadPolicy.Engine
    /// Whether the recorded config has an `authorization` object.
    public var authorizationConfigured: Bool
    /// Whether that authorization lets the engine refresh tokens on its own, in words
    /// ("token refresh configured", "authorization without refreshUrl: no token refresh possible").
    public var tokenRefresh: String
    /// Where the config came from (`state.config`, a log line, defaults).
    public var configSource: String
    public var gapThreshold: Double
    public var since: Double?
    public var until: Double?
    /// Log rows read (inside the window).
    public var logRows: Int
    /// Time of the first and last log row read.
    public var firstAt: Double?
    public var lastAt: Double?
    /// Records still queued at the moment of the dump.
    public var pendingRecords: Int
    public var events: [TimelineEvent]
    public var attempts: [UploadAttempt]
    public var gaps: [TrackingGap]
    /// Most severe first, then in order of first evidence.
    public var findings: [Finding]
    /// Items left out to keep the lists bounded (giant dumps): counted, never silently lost.
    public var omittedEvents: Int
    public var omittedAttempts: Int
    public var omittedGaps: Int

    /// With `--since` / `--until`: what the window holds and what the whole dump spans.
    public var window: TimelineWindow?
    /// How much of the history the log holds (see `HistoryCoverage`).
    public var history = HistoryCoverage()

    /// The most severe finding's severity, nil when there are none.
    public var worstSeverity: Severity? { findings.map(\.severity).max() }

    public func findings(code: String) -> [Finding] { findings.filter { $0.code == code } }
}

/// What a `--since` / `--until` window holds — its log rows and queued records — beside the time
/// the whole dump spans, so a window that misses the data says so instead of being diagnosed.
public struct TimelineWindow: Sendable, Equatable {
    public var since: Double?
    public var until: Double?
    public var logRowsInside: Int
    public var recordsInside: Int
    /// The first and last time in the whole dump (log rows by id, and queued records).
    public var dumpFirst: Double?
    public var dumpLast: Double?

    /// True when the window holds neither a log row nor a queued record.
    public var isEmpty: Bool { logRowsInside == 0 && recordsInside == 0 }

    /// "the window 2026-07-30T00:00:00Z → end holds no log row and no queued record; the dump runs
    /// from … to …", or nil when the window holds rows.
    public var emptyNote: String? {
        guard isEmpty else { return nil }
        func time(_ t: Double) -> String { Timestamp.format(t, milliseconds: false) }
        var note = "the window \(since.map(time) ?? "start") → \(until.map(time) ?? "end") holds no log row and no queued record"
        if let dumpFirst, let dumpLast { note += "; the dump runs from \(time(dumpFirst)) to \(time(dumpLast))" }
        return note + ", so nothing is diagnosed"
    }
}

/// One thing the engine did, or a run of the same thing collapsed (`count` > 1, first and last
/// rows kept).
public struct TimelineEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case session, relaunch, config, connectivity, motion, stationary
        case regionExit = "region_exit"
        case headless, heartbeat, refresh
        case poisonDrop = "poison_drop"
        case prune, deferral
        case logUpload = "log_upload"
        case filter, app, unknown
    }

    public var kind: Kind
    public var at: Double
    public var logId: Int64
    public var summary: String
    /// Rows collapsed into this event (1 = a single row).
    public var count: Int
    public var lastAt: Double
    public var lastLogId: Int64
    /// Events with the same key collapse when consecutive.
    var collapseKey: String

    public init(kind: Kind, at: Double, logId: Int64, summary: String, collapseKey: String? = nil) {
        self.kind = kind
        self.at = at
        self.logId = logId
        self.summary = summary
        count = 1
        lastAt = at
        lastLogId = logId
        self.collapseKey = collapseKey ?? TimelineEvent.collapseKey(kind: kind, summary: summary)
    }

    /// The key of an event that names none: its kind and summary.
    static func collapseKey(kind: Kind, summary: String) -> String { kind.rawValue + "\u{1}" + summary }
}

/// A token refresh made for one upload attempt.
public struct RefreshInfo: Sendable, Equatable {
    /// The `auth.refresh` row.
    public var requestLogId: Int64?
    /// The `auth.refresh.result` row.
    public var resultLogId: Int64?
    public var success: Bool?
    /// The status the refresh request itself received.
    public var status: Int?
}

/// One location upload: the `http.request` row, its `http.response`, and what followed
/// (refresh, backoff, drop).
public struct UploadAttempt: Sendable, Equatable {
    public var at: Double
    /// The `http.request` row (the response row when the request row is missing).
    public var logId: Int64
    public var responseLogId: Int64?
    public var respondedAt: Double?
    /// Records in the request.
    public var count: Int
    /// HTTP status; 0 = network error; nil = no response logged.
    public var status: Int?
    /// What the policy says the engine should do with the batch.
    public var outcome: UploadOutcome?
    /// Record uuids in the request (bounded; `uuidCount` is the total).
    public var uuids: UUIDList
    public var uuidCount: Int
    public var ms: Double?
    /// The `http.backoff` that followed, when one did.
    public var backoffDelay: Double?
    public var backoffFailures: Int?
    public var backoffLogId: Int64?
    public var refresh: RefreshInfo?
    /// True when this request re-sent a batch right after a successful token refresh.
    public var afterRefresh: Bool
    /// The `queue.drop` row that dropped records of this batch.
    public var dropLogId: Int64?
    /// Response body excerpt (redacted).
    public var response: String?
    /// Request URL (redacted).
    public var url: String?

    public init(at: Double, logId: Int64, count: Int, uuids: UUIDList, uuidCount: Int) {
        self.at = at
        self.logId = logId
        self.count = count
        self.uuids = uuids
        self.uuidCount = uuidCount
        afterRefresh = false
    }

    public var succeeded: Bool { outcome == .success }
}

/// A stretch with no fixes at all (neither queued nor logged) longer than the threshold.
public struct TrackingGap: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var seconds: Double { end - start }
    /// The last fix before the gap said the device was moving (nil: unknown).
    public var movingAtStart: Bool?
    /// How far apart the fixes on either side of the gap are, metres (nil: positions unknown).
    /// Kilometres across a "stationary" gap mean the device moved while nothing was recorded.
    public var distanceMeters: Double?
    /// Engine events inside the gap or within the context window of its edges.
    public var contextEvents: [GapContextEvent]
    /// True when the gap is explained by the device being stationary and still where it was
    /// (expected behaviour).
    public var expected: Bool
}

/// An engine event near a gap: relaunch, stationary, region exit, headless dispatch, …
public struct GapContextEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case sessionStart = "session.start"
        case relaunch = "session.relaunch"
        case stationary = "motion.stationary"
        case motionMoving = "motionchange.moving"
        case motionStationary = "motionchange.stationary"
        case regionExit = "wake.region.exit"
        case headless = "headless.dispatch"
        case heartbeat
        case connectivity
    }

    public var kind: Kind
    public var at: Double
    public var logId: Int64
    /// Extra words (a relaunch reason, a headless event name).
    public var detail: String?
    /// Where it sits: before the gap, inside it, or after it.
    public var position: Position

    public enum Position: String, Sendable { case before, inside, after }
}
