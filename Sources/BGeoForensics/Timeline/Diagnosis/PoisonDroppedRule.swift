/// `poison.dropped`: Records dropped from the queue, as poison or after a status the policy retries.
struct PoisonDroppedRule: FindingRule {
    let code = "poison.dropped"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        if facts.stats.dropRows.count > 0 {
            let n = facts.stats.droppedRecords
            let allPoison = facts.stats.dropStatuses.keys.allSatisfy { !PolicyRules(policy: facts.policy).dropIsViolation(status: $0, authorizationConfigured: facts.authorizationConfigured) }
            var summary = "\(n) record\(n == 1 ? " was" : "s were") dropped from the queue" + (allPoison ? " as poison" : "")
            if !facts.stats.dropStatuses.isEmpty { summary += " (server status \(facts.statusList(facts.stats.dropStatuses)))" }
            if let first = facts.stats.dropFirst, let last = facts.stats.dropLast {
                summary += first == last ? " at \(facts.time(first))" : " between \(facts.time(first)) and \(facts.time(last))"
            }
            summary += ". These fixes never reached the server and are gone from the device: "
            summary += facts.stats.dropUuids.values.prefix(5).joined(separator: ", ") + (facts.stats.dropUuids.count > 5 ? " …" : "") + "."
            summary += allPoison
                ? " The server rejected them as permanently invalid and the engine dropped them as its policy documents."
                : " Some drops followed a status the policy retries: see policy.violation."
            found.append(Finding(code: "poison.dropped", severity: .warning, summary: summary,
                                    evidence: [Evidence(note: "queue.drop rows", logIds: facts.stats.dropRows, uuids: facts.stats.dropUuids)],
                                    responsible: allPoison ? .server : .engine,
                                    action: allPoison
                                        ? "Read the server's response to these records (the http.response rows before each drop) and fix its validation or the app's data; the dropped fixes survive only in the location log lines."
                                        : "Report the drop after a retryable status to the SDK maintainers with these rows; the dropped fixes survive only in the location log lines.").spanning(facts.stats.dropFirst, facts.stats.dropLast))
        }
        return found
    }
}
