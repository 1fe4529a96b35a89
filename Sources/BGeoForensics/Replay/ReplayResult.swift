import BGeoReader

/// A replay held in memory: every fix with its decision, and the summary the same tally gives a
/// streamed replay (`StreamedReplay`). Unit tests, `fleet` and the oracle the streamed replay is
/// compared with use it; the commands stream a stored trace instead. The summary's members read
/// through (`result.accepted`, `result.diagnosis`).
@dynamicMemberLookup
public struct ReplayResult: Sendable {
    /// The trace replayed; `decisions[i]` belongs to `fixes[i]`.
    public let fixes: [Fix]
    public let decisions: [FixDecision]
    public var summary: ReplaySummary

    public init(config: FilterConfig, fixes: [Fix], decisions: [FixDecision], odometerReplayed: Double,
                configSource: String = "given", configNotes: [String] = [], traceStats: Trace.Stats? = nil) {
        self.fixes = fixes
        self.decisions = decisions
        summary = ReplayResult.tally(config: config, fixes: fixes, decisions: decisions, odometerReplayed: odometerReplayed,
                                     contributors: 10)
        summary.configSource = configSource
        summary.configNotes = configNotes
        summary.traceStats = traceStats
    }

    private static func tally(config: FilterConfig, fixes: [Fix], decisions: [FixDecision], odometerReplayed: Double,
                              contributors: Int) -> ReplaySummary {
        var tally = ReplayTally(config: config, contributorCapacity: contributors)
        for i in decisions.indices { tally.add(fixes[i], decisions[i]) }
        return tally.finish(odometerReplayed: odometerReplayed)
    }

    /// The summary able to name `top` contributors (tallied again when more than it kept are asked for).
    public func summary(top: Int) -> ReplaySummary {
        guard top > summary.contributorCapacity else { return summary }
        var wide = ReplayResult.tally(config: summary.config, fixes: fixes, decisions: decisions,
                                      odometerReplayed: summary.odometerReplayed, contributors: top)
        wide.configSource = summary.configSource
        wide.configNotes = summary.configNotes
        wide.traceStats = summary.traceStats
        wide.isWhatIf = summary.isWhatIf
        return wide
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<ReplaySummary, T>) -> T { summary[keyPath: keyPath] }

    public subscript<T>(dynamicMember keyPath: WritableKeyPath<ReplaySummary, T>) -> T {
        get { summary[keyPath: keyPath] }
        set { summary[keyPath: keyPath] = newValue }
    }

    /// The fixes that added the most distance, largest first (ties: earlier fix first).
    public func topContributors(limit: Int = 10) -> [Contributor] { summary(top: limit).topContributors(limit: limit) }

    /// The ten largest contributors.
    public var topContributors: [Contributor] { topContributors(limit: 10) }

    /// The summary as JSON, with every decision when `includeDecisions` (the tree `replay --json`
    /// streams).
    public func json(includeDecisions: Bool = false, top: Int = 10) -> JSONValue {
        var object = summary(top: top).summaryObject(top: top)
        if includeDecisions {
            object["decisions"] = .array(decisions.indices.map { ReplaySummary.decisionJSON(fixes[$0], decisions[$0]) })
        }
        return .object(object)
    }

    /// The readable summary.
    public func text(title: String, top: Int = 10) -> String { summary(top: top).text(title: title, top: top) }
}

/// Rounding for output only (the computation keeps full precision): millimetres, and 1e-8°
/// (about a millimetre) for coordinates, so outputs are stable and readable.
package enum Round {
    static func metres(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
    static func degrees(_ value: Double) -> Double { (value * 1e8).rounded() / 1e8 }
    package static func percent(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
