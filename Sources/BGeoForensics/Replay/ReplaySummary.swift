import BGeoReader

/// One fix that added distance to the replayed odometer (or whose step implied an impossible speed).
public struct Contributor: Sendable, Equatable {
    public var index: Int
    /// uuid, or the log row for filter lines.
    public var label: String
    public var timestampText: String
    public var decision: Decision
    /// Metres added to the odometer.
    public var distanceAdded: Double
    /// distanceAdded / seconds since the previous counting fix, m/s.
    public var impliedSpeed: Double?
    public var accuracy: Double?
    /// The fix's rows (the report links to them).
    var rowId: Int64?
    var logId: Int64?

    public var json: JSONValue {
        ["uuid": .string(label), "timestamp": .string(timestampText), "decision": .string(decision.rawValue),
         "distanceAdded": .double(Round.metres(distanceAdded)), "impliedSpeed": .from(impliedSpeed.map(Round.metres)),
         "accuracy": .from(accuracy)]
    }
}

extension Contributor {
    init(fix: Fix, decision d: FixDecision) {
        self.init(index: d.index, label: fix.label, timestampText: fix.timestampText, decision: d.decision,
                  distanceAdded: d.distanceAdded, impliedSpeed: d.stepSpeed, accuracy: fix.accuracy, rowId: fix.rowId,
                  logId: fix.logId)
    }
}

/// Everything a reader is told about one replay: counts per decision and reason, the odometers,
/// and the few fixes worth naming (each kept with the words that find it in the dump), so a
/// million-fix replay is summarised without keeping its fixes. Built fix by fix by `ReplayTally`,
/// the one code path for a replay held in memory (`ReplayResult`) and a streamed one.
public struct ReplaySummary: Sendable {
    public let config: FilterConfig
    /// Where `config` came from, in words ("state.config", "engine defaults …", plus overrides).
    public var configSource = "given"
    /// Keys defaulted or unusable (from `FilterConfig.notes`).
    public var configNotes: [String] = []
    /// How the trace was assembled, when it came from a dump.
    public var traceStats: Trace.Stats?
    /// True when the config is not the recorded one (overrides given): disagreeing with the
    /// engine is then expected, not a finding.
    public var isWhatIf = false

    /// Fixes replayed.
    public internal(set) var fixCount = 0
    public internal(set) var accepted = 0
    public internal(set) var adjusted = 0
    public internal(set) var rejectedAccuracy = 0
    public internal(set) var rejectedTime = 0
    public internal(set) var rejectedTeleport = 0
    /// Fixes with no accuracy at all among the accuracy rejections.
    public internal(set) var rejectedUnknownAccuracy = 0
    public var rejected: Int { rejectedAccuracy + rejectedTime + rejectedTeleport }

    /// The replayed odometer, metres.
    public internal(set) var odometerReplayed = 0.0
    /// First and last recorded odometer values (for the text when they go down).
    public internal(set) var recordedOdometerRange: (first: Double, last: Double)?
    /// Last − first recorded `odometer` value across the trace, metres; nil when the dump records none.
    public var odometerRecorded: Double? { recordedOdometerRange.map { $0.last - $0.first } }

    /// Counting steps whose implied speed exceeds locationFilterMaxSpeed, fastest first (at most 10).
    public internal(set) var impossibleSteps: [Contributor] = []
    public internal(set) var impossibleStepCount = 0
    /// Counting steps that add distance with no time elapsed (filter disabled only).
    public internal(set) var zeroTimeSteps = 0
    /// The fastest teleport-rejected fixes (at most 3).
    public internal(set) var fastestTeleports: [Teleport] = []
    /// Fixes whose replayed decision differs from the engine's own (accepted for queue/location,
    /// rejected for filter.reject, adjusted for filter.adjust), with the first few in words.
    public internal(set) var engineDisagreements = 0
    public internal(set) var engineDisagreementExamples: [Disagreement] = []
    /// Where the SDK's recorded odometer advanced more than replay between two consecutive
    /// fixes carrying a recorded value; largest excess first (at most 3).
    public internal(set) var recordedJumps: [RecordedJump] = []
    /// The fixes that added the most distance, largest first (ties: earlier fix first), at most
    /// `contributorCapacity`.
    var contributors: [Contributor] = []
    /// How many contributors are kept: `topContributors(limit:)` answers up to this many.
    let contributorCapacity: Int

    /// A teleport rejection named in the diagnosis.
    public struct Teleport: Sendable, Equatable {
        public var index: Int
        public var label: String
        public var timestampText: String
        /// The implied speed, m/s.
        public var speed: Double
    }

    /// A fix replay decides differently from the engine, in words.
    public struct Disagreement: Sendable, Equatable {
        public var index: Int
        public var words: String
    }

    /// A stretch where the recorded odometer advanced more than the replayed one, ending at the fix `index`.
    public struct RecordedJump: Sendable, Equatable {
        public var index: Int
        public var label: String
        public var timestampText: String
        /// The recorded and the replayed advance since the previous fix with a recorded value, metres.
        public var recorded: Double
        public var replayed: Double
    }

    public init(config: FilterConfig, contributorCapacity: Int = 10) {
        self.config = config
        self.contributorCapacity = max(contributorCapacity, 10)
    }

    /// replayed − recorded, metres.
    public var odometerDifference: Double? { odometerRecorded.map { odometerReplayed - $0 } }

    /// The difference as a percentage of the recorded span; nil without a positive recorded span.
    public var odometerDifferencePercent: Double? {
        guard let recorded = odometerRecorded, recorded > 0, let difference = odometerDifference else { return nil }
        return difference / recorded * 100
    }

    /// The fixes that added the most distance, largest first (ties: earlier fix first); at most
    /// `contributorCapacity`.
    public func topContributors(limit: Int = 10) -> [Contributor] { Array(contributors.prefix(max(0, limit))) }

    /// The ten largest contributors.
    public var topContributors: [Contributor] { topContributors(limit: 10) }
}

/// Builds a `ReplaySummary` from the pipeline's decisions, one fix at a time in trace order,
/// keeping only short lists (a candidate's strings are built only when it enters one).
struct ReplayTally {
    private(set) var summary: ReplaySummary
    private var lastRecorded: (odometer: Double, replayed: Double)?
    private let limit: Double

    init(config: FilterConfig, contributorCapacity: Int = 10) {
        summary = ReplaySummary(config: config, contributorCapacity: contributorCapacity)
        limit = config.locationFilterMaxSpeed
    }

    /// Takes the decision on the next fix of the trace.
    mutating func add(_ fix: Fix, _ d: FixDecision) {
        summary.fixCount += 1
        switch d.decision {
        case .accepted: summary.accepted += 1
        case .adjusted: summary.adjusted += 1
        case .rejected:
            switch d.reason ?? .accuracy {
            case .accuracy:
                summary.rejectedAccuracy += 1
                if fix.accuracy == nil { summary.rejectedUnknownAccuracy += 1 }
            case .time: summary.rejectedTime += 1
            case .teleport:
                summary.rejectedTeleport += 1
                if let v = d.impliedSpeed, ReplayTally.qualifies(v, summary.fastestTeleports, count: 3, by: \.speed) {
                    let named = ReplaySummary.Teleport(index: d.index, label: fix.label, timestampText: fix.timestampText, speed: v)
                    ReplayTally.keepTop(&summary.fastestTeleports, named, count: 3) { $0.speed > $1.speed }
                }
            }
        }
        if d.counted, d.distanceAdded > 0 {
            if let v = d.stepSpeed {
                if v > limit {
                    summary.impossibleStepCount += 1
                    if ReplayTally.qualifies(v, summary.impossibleSteps, count: 10, by: { $0.impliedSpeed ?? 0 }) {
                        ReplayTally.keepTop(&summary.impossibleSteps, Contributor(fix: fix, decision: d), count: 10) {
                            ($0.impliedSpeed ?? 0) > ($1.impliedSpeed ?? 0)
                        }
                    }
                }
            } else {
                summary.zeroTimeSteps += 1
            }
            let capacity = summary.contributorCapacity
            if ReplayTally.qualifies(d.distanceAdded, summary.contributors, count: capacity, by: \.distanceAdded) {
                ReplayTally.keepTop(&summary.contributors, Contributor(fix: fix, decision: d), count: capacity) {
                    $0.distanceAdded > $1.distanceAdded
                }
            }
        }
        if d.decision != fix.source.recordedDecision {
            summary.engineDisagreements += 1
            if summary.engineDisagreementExamples.count < 5 {
                let engine = fix.source.recordedDecision.rawValue + (fix.recordedReason.map { " (\($0.rawValue))" } ?? "")
                summary.engineDisagreementExamples.append(.init(
                    index: d.index, words: "\(fix.label) at \(fix.timestampText): engine \(engine), replay \(d.label)"))
            }
        }
        if let odo = fix.recordedOdometer, odo.isFinite {
            if let previous = lastRecorded {
                let recorded = odo - previous.odometer, replayed = d.odometer - previous.replayed
                if recorded - replayed > 0,
                   ReplayTally.qualifies(recorded - replayed, summary.recordedJumps, count: 3, by: { $0.recorded - $0.replayed }) {
                    let jump = ReplaySummary.RecordedJump(index: d.index, label: fix.label, timestampText: fix.timestampText,
                                                          recorded: recorded, replayed: replayed)
                    ReplayTally.keepTop(&summary.recordedJumps, jump, count: 3) { $0.recorded - $0.replayed > $1.recorded - $1.replayed }
                }
            }
            summary.recordedOdometerRange = (summary.recordedOdometerRange?.first ?? odo, odo)
            lastRecorded = (odo, d.odometer)
        }
    }

    /// The summary, with the pipeline's final odometer.
    func finish(odometerReplayed: Double) -> ReplaySummary {
        var summary = self.summary
        summary.odometerReplayed = odometerReplayed
        return summary
    }

    /// Cheap test before building a candidate (its strings): would it enter the list?
    private static func qualifies<T>(_ value: Double, _ list: [T], count: Int, by key: (T) -> Double) -> Bool {
        guard count > 0 else { return false }
        return list.count < count || list.last.map { value > key($0) } ?? true
    }

    /// Inserts into a small list kept sorted by `before`, capped at `count` (earlier entries win ties).
    static func keepTop<T>(_ list: inout [T], _ item: T, count: Int, by before: (T, T) -> Bool) {
        guard count > 0 else { return }
        if list.count == count, let tail = list.last, !before(item, tail) { return }
        var position = list.count
        while position > 0, before(item, list[position - 1]) { position -= 1 }
        list.insert(item, at: position)
        if list.count > count { list.removeLast() }
    }
}
