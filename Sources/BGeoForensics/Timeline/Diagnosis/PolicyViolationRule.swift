import BGeoReader

/// `policy.violation`: A documented upload rule (`PolicyRule`) the engine broke, one finding per rule.
struct PolicyViolationRule: FindingRule {
    let code = "policy.violation"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        var violations = facts.violations
        // The state is the engine's at the moment of the dump: only comparable with the whole log.
        if facts.options.until == nil, let lastSuccess = facts.stats.lastSuccess, facts.stats.lastStatus.map({ (200...299).contains($0) }) == true,
           let failures = facts.state.httpFailures, failures > 0 {
            violations.add(.successNoReset,
                           "the last upload succeeded (row \(lastSuccess.row)) but the dump's state still says http.failures = \(failures)",
                           logIds: [lastSuccess.row])
        }
        // The queue's attempt counters are the engine's state at the moment of the dump.
        if facts.options.until == nil, facts.queueAttempts.overLimitUUIDs.count > 0, let limit = facts.policy.maxAttemptsBeforeDrop {
            let n = facts.queueAttempts.overLimitUUIDs.count
            violations.add(.keptAfterAttempts,
                           "\(n) record\(n == 1 ? " is" : "s are") still queued with \(limit) or more counted attempts (up to \(facts.queueAttempts.highest))",
                           logIds: [], uuids: facts.queueAttempts.overLimitUUIDs.values)
        }
        for rule in PolicyRule.allCases {
            guard let list = violations.lists[rule] else { continue }
            let n = list.total
            var summary = "The engine broke its \(facts.policy.engine.rawValue) upload policy \(n == 1 ? "once" : "\(n) times"): \(rule.statement)."
            if let first = list.items.first?.note { summary += " " + (n == 1 ? "Here: " : "First: ") + first + "." }
            let sdk = facts.state.device?.valueIgnoringCase("sdk")?.stringValue.map { " (SDK \($0))" } ?? ""
            found.append(Finding(code: "policy.violation", severity: rule.severity, summary: summary,
                                    evidence: list.items, rule: rule.rawValue, omittedEvidence: list.omitted,
                                    responsible: .engine,
                                    action: "Neither the app's config nor the server explains this: report it to the \(facts.policy.engine.productName) SDK maintainers\(sdk) with these log rows and the dump's SHA-256."))
        }
        return found
    }
}
