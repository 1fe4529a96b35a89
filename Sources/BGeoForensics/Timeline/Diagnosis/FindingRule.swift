import BGeoReader

/// One finding code's rule: reads the facts the timeline gathered (`DiagnosisFacts`) and says
/// what, if anything, a support engineer must be told. Rules are pure: no I/O, no shared state,
/// so each is tested on its own. Adding a rule touches its file, its test and `FindingRules.all`.
protocol FindingRule: Sendable {
    /// The stable code of the findings this rule makes (`queue.stranded`, …).
    var code: String { get }
    /// The rule's findings for these facts (none when it does not apply).
    func findings(_ facts: DiagnosisFacts) -> [Finding]
}

extension Finding {
    /// Every code a finding can have, in the rules' order: what `timeline --help` lists.
    public static var codes: [String] { FindingRules.all.map(\.code) }
}

/// The diagnosis: every rule, in the order their findings are listed when severities tie.
enum FindingRules {
    static let all: [any FindingRule] = [
        QueueStrandedRule(), AuthRefreshFailingRule(), AuthNoRefreshRule(), PoisonDroppedRule(), PolicyViolationRule(),
        QueueAttemptsRule(), QueuePrunedRule(), SyncDeferredRule(), TrackingGapRule(), ClockSteppedRule(),
        LogUploadFailingRule(),
    ]

    /// Every rule's findings, most severe first (ties keep the rules' order).
    static func diagnose(_ facts: DiagnosisFacts) -> [Finding] {
        var findings = all.flatMap { $0.findings(facts) }
        for index in findings.indices { findings[index].historyComplete = facts.history.isComplete }
        return findings.enumerated().sorted { ($0.element.severity, -$0.offset) > ($1.element.severity, -$1.offset) }.map(\.element)
    }
}
