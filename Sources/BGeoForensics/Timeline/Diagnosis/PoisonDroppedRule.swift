import BGeoReader

/// `poison.dropped`: Records dropped from the queue, as poison or after a status the policy retries.
struct PoisonDroppedRule: FindingRule {
    let code = "poison.dropped"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        if facts.stats.dropRows.count > 0 {
            let n = facts.stats.droppedRecords
            // One count for both findings: the drops the tracker flagged as breaking the policy.
            let drops = facts.stats.dropRows.count
            let broken = facts.stats.dropsBreakingPolicy
            let allPoison = broken == 0
            let unread = facts.stats.unreadDrops
            // A drop row whose data is not a JSON object states no records: said, not counted as none.
            var summary = unread == drops ? "Records were dropped from the queue"
                : "\(n) record\(n == 1 ? " was" : "s were") dropped from the queue"
            summary += allPoison ? " as poison" : ""
            if unread > 0 {
                summary += unread == drops ? " (how many is not known: the data of the queue.drop row\(drops == 1 ? " is" : "s are") not a JSON object)"
                    : ", and more by \(unread) queue.drop row\(unread == 1 ? "" : "s") whose data is not a JSON object (how many is not known)"
            }
            if !facts.stats.dropStatuses.isEmpty { summary += " (server status \(facts.statusList(facts.stats.dropStatuses)))" }
            if let first = facts.stats.dropFirst, let last = facts.stats.dropLast {
                summary += first == last ? " at \(facts.time(first))" : " between \(facts.time(first)) and \(facts.time(last))"
            }
            summary += ". These fixes never reached the server and are gone from the device"
            summary += facts.stats.dropUuids.count == 0 ? "."
                : ": " + facts.stats.dropUuids.values.prefix(5).joined(separator: ", ") + (facts.stats.dropUuids.count > 5 ? " …" : "") + "."
            if allPoison {
                summary += " The server rejected them as permanently invalid and the engine dropped them as its policy documents."
            } else if broken == drops {
                summary += drops == 1 ? " The drop broke the upload policy: see policy.violation." : " None of the \(drops) drops followed the upload policy: see policy.violation."
            } else {
                summary += " \(broken) of the \(drops) drops broke the upload policy (see policy.violation); the other \(drops - broken) followed it."
            }
            let survival = facts.locationLines > 0
                ? "the dropped fixes survive only in the location log lines (\(facts.locationLines) in this dump)."
                : "this dump has no location log lines (logLevel below 4, debug), so the dropped fixes cannot be recovered from it."
            found.append(Finding(code: "poison.dropped", severity: .warning, summary: summary,
                                    evidence: [Evidence(note: "queue.drop rows", logIds: facts.stats.dropRows, uuids: facts.stats.dropUuids)],
                                    responsible: allPoison ? .server : .engine,
                                    action: allPoison
                                        ? "Read the server's response to these records (the http.response rows before each drop) and fix its validation or the app's data; " + survival
                                        : "Report the drops after a retryable status or an unsplit batch to the SDK maintainers with these rows; " + survival).spanning(facts.stats.dropFirst, facts.stats.dropLast))
        }
        return found
    }
}
