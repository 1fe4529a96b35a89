import BGeoReader

/// How serious a finding is. Order: error first.
public enum ReportSeverity: String, Sendable, Comparable, CaseIterable {
    case error
    case warning
    case info

    var rank: Int {
        switch self {
        case .error: return 0
        case .warning: return 1
        case .info: return 2
        }
    }

    public static func < (lhs: ReportSeverity, rhs: ReportSeverity) -> Bool { lhs.rank < rhs.rank }
}

/// One conclusion shown at the top of a report, linked to the rows that prove it.
public struct ReportFinding: Sendable {
    public var code: String
    public var severity: ReportSeverity
    public var summary: String
    public var evidence: [EvidenceRef]
    /// uuids named as evidence (shown as text; the queue table is searchable by uuid).
    public var uuids: [String]
    /// Plain notes that come with the evidence (a state value, a rule, what was left out).
    public var notes: [String]
    /// Who is to blame, and what the reader should do.
    public var responsible: Responsibility
    public var action: String

    public init(code: String, severity: ReportSeverity, summary: String, evidence: [EvidenceRef] = [], uuids: [String] = [],
                notes: [String] = [], responsible: Responsibility = .unknown, action: String = "") {
        self.code = code
        self.severity = severity
        self.summary = summary
        self.evidence = evidence
        self.uuids = uuids
        self.notes = notes
        self.responsible = responsible
        self.action = action
    }
}

/// One upload attempt: a request and what came back.
public struct ReportAttempt: Sendable {
    public var time: Double
    /// The `http.request` log row.
    public var logId: Int64
    public var count: Int
    /// nil when the dump ends before a response was logged.
    public var status: Int?
    /// success | drop | retry | refresh | halveBatch | countAttempt | pending …
    public var outcome: String
    public var uuids: UUIDList
    /// Seconds the engine waited before the next attempt (from `http.backoff`), when logged.
    public var backoffDelay: Double?
    /// For a 401/403: whether the token refresh made for it succeeded (nil: none was logged).
    public var refreshSucceeded: Bool?

    public init(time: Double, logId: Int64, count: Int, status: Int?, outcome: String, uuids: UUIDList = [], backoffDelay: Double? = nil,
                refreshSucceeded: Bool? = nil) {
        self.time = time
        self.logId = logId
        self.count = count
        self.status = status
        self.outcome = outcome
        self.uuids = uuids
        self.backoffDelay = backoffDelay
        self.refreshSucceeded = refreshSucceeded
    }

    /// What became of the attempt, in the words the chart legend and the attempts table use.
    /// A 401 whose refresh failed is "refresh failed", not "refresh" (the policy's intent).
    public enum Result: String, Sendable, CaseIterable {
        case delivered, refreshed, refreshFailed, unauthorized, retried, dropped, halved, counted, pending

        public var label: String {
            switch self {
            case .delivered: return "delivered (2xx)"
            case .refreshed: return "401/403 → token refreshed"
            case .refreshFailed: return "401/403 → refresh failed"
            case .unauthorized: return "401/403 → no refresh, retried"
            case .retried: return "failed (5xx, 429, network) → retried"
            case .dropped: return "dropped as poison"
            case .halved: return "413 → batch halved"
            case .counted: return "4xx → attempt counted"
            case .pending: return "no response logged"
            }
        }
    }

    public var result: Result {
        switch outcome {
        case "success": return .delivered
        case "refresh":
            switch refreshSucceeded {
            case true?: return .refreshed
            case false?: return .refreshFailed
            case nil: return .unauthorized
            }
        case "retry": return [401, 403].contains(status ?? 0) ? .unauthorized : .retried
        case "drop": return .dropped
        case "halveBatch": return .halved
        case "countAttempt": return .counted
        default: return .pending
        }
    }
}

/// A stretch of time without fixes longer than the gap threshold.
public struct ReportGap: Sendable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    public var seconds: Double { end - start }
}

/// The replay section: what the engine recorded beside what a replay with the config produces.
public struct ReportReplaySummary: Sendable {
    public var title: String
    /// Decision counts, exact.
    public var counts: [(label: String, count: Int)]
    public var odometerRecorded: Double?
    public var odometerReplayed: Double?
    /// The fixes that add the most distance (label, metres).
    public var topContributors: [(label: String, metres: Double, evidence: EvidenceRef?)]
    public var notes: [String]

    public init(title: String, counts: [(label: String, count: Int)] = [], odometerRecorded: Double? = nil,
                odometerReplayed: Double? = nil, topContributors: [(label: String, metres: Double, evidence: EvidenceRef?)] = [],
                notes: [String] = []) {
        self.title = title
        self.counts = counts
        self.odometerRecorded = odometerRecorded
        self.odometerReplayed = odometerReplayed
        self.topContributors = topContributors
        self.notes = notes
    }
}
