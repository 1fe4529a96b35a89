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

    public var json: JSONValue {
        ["uuid": .string(label), "timestamp": .string(timestampText), "decision": .string(decision.rawValue),
         "distanceAdded": .double(Round.metres(distanceAdded)), "impliedSpeed": .from(impliedSpeed.map(Round.metres)),
         "accuracy": .from(accuracy)]
    }
}

/// Everything one replay produced: per-fix decisions and the totals a support engineer reads.
public struct ReplayResult: Sendable {
    public let config: FilterConfig
    /// Where `config` came from, in words ("state.config", "engine defaults …", plus overrides).
    public var configSource: String
    /// Keys defaulted or unusable (from `FilterConfig.notes`).
    public var configNotes: [String]
    /// The trace replayed; `decisions[i]` belongs to `fixes[i]`.
    public let fixes: [Fix]
    public let decisions: [FixDecision]
    /// How the trace was assembled, when it came from a dump.
    public var traceStats: Trace.Stats?
    /// True when the config is not the recorded one (overrides given): disagreeing with the
    /// engine is then expected, not a finding.
    public var isWhatIf = false

    public let accepted: Int
    public let adjusted: Int
    public let rejectedAccuracy: Int
    public let rejectedTime: Int
    public let rejectedTeleport: Int
    /// Fixes with no accuracy at all among the accuracy rejections.
    public let rejectedUnknownAccuracy: Int
    public var rejected: Int { rejectedAccuracy + rejectedTime + rejectedTeleport }

    /// The replayed odometer, metres.
    public let odometerReplayed: Double
    /// Last − first recorded `odometer` value across the trace, metres; nil when the dump records none.
    public let odometerRecorded: Double?
    /// First and last recorded odometer values (for the text when they go down).
    public let recordedOdometerRange: (first: Double, last: Double)?

    /// Counting steps whose implied speed exceeds locationFilterMaxSpeed, fastest first (at most 10).
    public let impossibleSteps: [Contributor]
    public let impossibleStepCount: Int
    /// Counting steps that add distance with no time elapsed (filter disabled only).
    public let zeroTimeSteps: Int
    /// The fastest teleport-rejected fixes (at most 3) and the count.
    public let fastestTeleports: [(index: Int, speed: Double)]
    /// Fixes whose replayed decision differs from the engine's own (accepted for queue/location,
    /// rejected for filter.reject, adjusted for filter.adjust), with the first few.
    public let engineDisagreements: Int
    public let engineDisagreementExamples: [Int]
    /// Where the SDK's recorded odometer advanced more than replay between two consecutive
    /// fixes carrying a recorded value: the fix at `index`, the recorded and replayed advances
    /// since the previous recorded fix; largest excess first (at most 3).
    public let recordedJumps: [(index: Int, recorded: Double, replayed: Double)]

    public init(config: FilterConfig, fixes: [Fix], decisions: [FixDecision], odometerReplayed: Double,
                configSource: String = "given", configNotes: [String] = [], traceStats: Trace.Stats? = nil) {
        self.config = config
        self.fixes = fixes
        self.decisions = decisions
        self.odometerReplayed = odometerReplayed
        self.configSource = configSource
        self.configNotes = configNotes
        self.traceStats = traceStats
        var accepted = 0, adjusted = 0, accuracy = 0, time = 0, teleport = 0, unknown = 0
        var impossible: [Contributor] = []
        var impossibleCount = 0, zeroTime = 0
        var teleports: [(index: Int, speed: Double)] = []
        var disagreements = 0
        var examples: [Int] = []
        var first: Double?, last: Double?
        var lastRecordedIndex: Int?
        var jumps: [(index: Int, recorded: Double, replayed: Double)] = []
        let limit = config.locationFilterMaxSpeed
        for i in decisions.indices {
            let d = decisions[i]
            // Field reads (not `let fix = fixes[i]`): copying a Fix retains its strings.
            switch d.decision {
            case .accepted: accepted += 1
            case .adjusted: adjusted += 1
            case .rejected:
                switch d.reason ?? .accuracy {
                case .accuracy:
                    accuracy += 1
                    if fixes[i].accuracy == nil { unknown += 1 }
                case .time: time += 1
                case .teleport:
                    teleport += 1
                    if let v = d.impliedSpeed { ReplayResult.keepTop(&teleports, (i, v), count: 3) { $0.speed > $1.speed } }
                }
            }
            if d.counted, d.distanceAdded > 0 {
                if let v = d.stepSpeed {
                    if v > limit {
                        impossibleCount += 1
                        ReplayResult.keepTop(&impossible, Contributor(fixes: fixes, decision: d), count: 10) {
                            ($0.impliedSpeed ?? 0) > ($1.impliedSpeed ?? 0)
                        }
                    }
                } else {
                    zeroTime += 1
                }
            }
            if d.decision != fixes[i].source.recordedDecision {
                disagreements += 1
                if examples.count < 5 { examples.append(i) }
            }
            if let odo = fixes[i].recordedOdometer, odo.isFinite {
                if first == nil { first = odo }
                if let j = lastRecordedIndex, let previous = last {
                    let jump = (index: i, recorded: odo - previous, replayed: d.odometer - decisions[j].odometer)
                    if jump.recorded - jump.replayed > 0 {
                        ReplayResult.keepTop(&jumps, jump, count: 3) { $0.recorded - $0.replayed > $1.recorded - $1.replayed }
                    }
                }
                last = odo
                lastRecordedIndex = i
            }
        }
        self.accepted = accepted
        self.adjusted = adjusted
        rejectedAccuracy = accuracy
        rejectedTime = time
        rejectedTeleport = teleport
        rejectedUnknownAccuracy = unknown
        impossibleSteps = impossible
        impossibleStepCount = impossibleCount
        zeroTimeSteps = zeroTime
        fastestTeleports = teleports
        engineDisagreements = disagreements
        engineDisagreementExamples = examples
        recordedJumps = jumps
        if let first, let last {
            odometerRecorded = last - first
            recordedOdometerRange = (first, last)
        } else {
            odometerRecorded = nil
            recordedOdometerRange = nil
        }
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

    /// replayed − recorded, metres.
    public var odometerDifference: Double? { odometerRecorded.map { odometerReplayed - $0 } }

    /// The difference as a percentage of the recorded span; nil without a positive recorded span.
    public var odometerDifferencePercent: Double? {
        guard let recorded = odometerRecorded, recorded > 0, let difference = odometerDifference else { return nil }
        return difference / recorded * 100
    }

    /// The fixes that added the most distance, largest first (ties: earlier fix first).
    public func topContributors(limit: Int = 10) -> [Contributor] {
        var top: [Contributor] = []
        guard limit > 0 else { return top }
        for d in decisions where d.counted && d.distanceAdded > 0 {
            if top.count == limit, let tail = top.last, d.distanceAdded <= tail.distanceAdded { continue }
            ReplayResult.keepTop(&top, Contributor(fixes: fixes, decision: d), count: limit) { $0.distanceAdded > $1.distanceAdded }
        }
        return top
    }

    /// The ten largest contributors.
    public var topContributors: [Contributor] { topContributors(limit: 10) }
}

extension Contributor {
    init(fixes: [Fix], decision d: FixDecision) {
        let fix = fixes[d.index]
        self.init(index: d.index, label: fix.label, timestampText: fix.timestampText, decision: d.decision,
                  distanceAdded: d.distanceAdded, impliedSpeed: d.stepSpeed, accuracy: fix.accuracy)
    }
}

/// Rounding for output only (the computation keeps full precision): millimetres, and 1e-8°
/// (about a millimetre) for coordinates, so outputs are stable and readable.
enum Round {
    static func metres(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
    static func degrees(_ value: Double) -> Double { (value * 1e8).rounded() / 1e8 }
    static func percent(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
