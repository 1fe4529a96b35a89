import BGeoReader

/// How bad a finding is. Ordered: `.info < .warning < .error`.
public enum Severity: Int, Sendable, Comparable, CaseIterable {
    /// Worth knowing, expected behaviour (a stationary gap, a threshold deferral).
    case info = 0
    /// Something went wrong or data was lost, but by the documented rules.
    case warning = 1
    /// Needs action: the queue is stuck, or the engine broke its documented policy.
    case error = 2

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rawValue < rhs.rawValue }

    public var name: String {
        switch self {
        case .info: return "info"
        case .warning: return "warning"
        case .error: return "error"
        }
    }
}

/// Whose fix a finding calls for. An app misconfiguration, a server's answers and an engine that
/// broke its own documented policy are three different findings with three different fixes, so
/// every finding names one (and says what to do in `Finding.action`).
public enum Responsibility: String, Sendable, CaseIterable {
    /// The app's SDK configuration (`ready()` / `setConfig()`): fixed in the app.
    case appConfig = "app-config"
    /// The ingest or auth server's answers: fixed on the server side (or its credentials).
    case server
    /// The SDK engine did not do what its guides document: an SDK bug report.
    case engine
    /// The phone: offline, or the OS killed the app.
    case device
    /// Documented behaviour working as designed: nothing to fix.
    case expected
    /// The dump does not say (the log holds too little).
    case unknown

    /// For sentences: "the app's configuration".
    public var words: String {
        switch self {
        case .appConfig: return "the app's SDK configuration"
        case .server: return "the server side (the ingest or auth server, or the credentials it issued)"
        case .engine: return "the SDK engine (it broke its documented policy)"
        case .device: return "the device"
        case .expected: return "nobody: documented behaviour"
        case .unknown: return "not recorded in this dump"
        }
    }
}

/// What a finding rests on: log row ids and/or record uuids, and an optional plain note
/// (a state value, a rule). Lists are bounded; `omitted*` counts what was left out.
public struct Evidence: Sendable, Equatable {
    public var note: String?
    public var logIds: [Int64]
    public var uuids: [String]
    public var omittedLogIds: Int
    public var omittedUuids: Int

    /// Each row id and uuid is cited once, in first-seen order (context rows shared by
    /// neighbouring gaps are not repeated).
    public init(note: String? = nil, logIds: [Int64] = [], uuids: [String] = [], limit: Int = Evidence.defaultLimit) {
        self.note = note
        let logIds = Evidence.unique(logIds)
        let uuids = Evidence.unique(uuids)
        self.logIds = Array(logIds.prefix(limit))
        self.uuids = Array(uuids.prefix(limit))
        omittedLogIds = max(0, logIds.count - limit)
        omittedUuids = max(0, uuids.count - limit)
    }

    static func unique<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }

    /// Ids and uuids kept per evidence item.
    public static let defaultLimit = 50
}

/// One diagnosis a support engineer can paste into a ticket.
public struct Finding: Sendable, Equatable {
    /// Stable machine code: `queue.stranded`, `auth.refresh_failing`, `policy.violation`, …
    public var code: String
    public var severity: Severity
    /// Plain words: what happened, since when, how many, why.
    public var summary: String
    public var evidence: [Evidence]
    /// For `policy.violation`: the rule broken (`retryable-dropped`, `backoff-schedule`, …).
    public var rule: String?
    /// Evidence items left out to keep the list bounded.
    public var omittedEvidence: Int
    /// Who is to blame: the app's config, the server, the engine, the device, or nobody.
    public var responsible: Responsibility
    /// What the reader should do about it, in one sentence.
    public var action: String
    /// When what the finding describes began and last happened, where the diagnosis knows it
    /// (its evidence lists are bounded, so their rows can understate the span); nil otherwise.
    public var firstAt: Double?
    public var lastAt: Double?
    /// False when the log does not hold the whole history this finding speaks of (pruned, read
    /// through a window, or short of the engine's own failure counter): see `HistoryCoverage`.
    public var historyComplete = true

    public init(code: String, severity: Severity, summary: String, evidence: [Evidence] = [], rule: String? = nil,
                omittedEvidence: Int = 0, responsible: Responsibility, action: String) {
        self.code = code
        self.severity = severity
        self.summary = summary
        self.evidence = evidence
        self.rule = rule
        self.omittedEvidence = omittedEvidence
        self.responsible = responsible
        self.action = action
    }

    /// The finding with its time span set.
    func spanning(_ first: Double?, _ last: Double?) -> Finding {
        var copy = self
        copy.firstAt = first
        copy.lastAt = last
        return copy
    }

    /// Every log row id this finding cites (for tests and cross-references).
    public var allLogIds: [Int64] { evidence.flatMap(\.logIds) }
    /// Every uuid this finding cites.
    public var allUuids: [String] { evidence.flatMap(\.uuids) }
    /// How many uuids this finding cites, the ones its bounded lists left out included: the one
    /// count every output shows ("(+396)" in the text, "396 more uuids cited" in the report).
    public var citedUuidCount: Int { evidence.reduce(0) { $0 + $1.uuids.count + $1.omittedUuids } }
}

/// Collects evidence items up to a bound, counting the rest.
struct EvidenceList: Sendable {
    private(set) var items: [Evidence] = []
    private(set) var omitted = 0
    let limit: Int

    init(limit: Int = 20) { self.limit = limit }

    mutating func add(_ evidence: Evidence) {
        add { evidence }
    }

    /// Adds the evidence `make` gives, made only when the list keeps it (else only counted).
    mutating func add(_ make: () -> Evidence) {
        if items.count < limit { items.append(make()) } else { omitted += 1 }
    }

    var total: Int { items.count + omitted }
}

/// Keeps the first `limit` values and counts all of them.
struct BoundedList<Element: Sendable>: Sendable {
    private(set) var values: [Element] = []
    private(set) var count = 0
    let limit: Int

    init(limit: Int = Evidence.defaultLimit) { self.limit = limit }

    mutating func append(_ value: Element) {
        if values.count < limit { values.append(value) }
        count += 1
    }

    mutating func append(contentsOf values: [Element]) { values.forEach { append($0) } }

    /// Appends the first `values` of `total` (the rest counted only).
    mutating func append(contentsOf values: [Element], of total: Int) {
        values.forEach { append($0) }
        count += max(0, total - values.count)
    }

    var omitted: Int { count - values.count }
}

extension Evidence {
    /// Evidence from bounded lists, carrying their omitted counts.
    init(note: String? = nil, logIds: BoundedList<Int64>, uuids: BoundedList<String> = BoundedList()) {
        self.init(note: note, logIds: logIds.values, uuids: uuids.values, limit: Int.max)
        omittedLogIds = logIds.omitted
        omittedUuids = uuids.omitted
    }
}
