import BGeoReader

/// `queue.attempts`: LongPing records one or two 4xx answers away from deletion.
struct QueueAttemptsRule: FindingRule {
    let code = "queue.attempts"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        if facts.options.until == nil, facts.queueAttempts.triedRecords > 0, let limit = facts.policy.maxAttemptsBeforeDrop {
            let tried = facts.queueAttempts.triedRecords
            let atBrink = facts.queueAttempts.recordsByAttempts[limit - 1] ?? 0
            var summary = "\(tried) queued record\(tried == 1 ? " was" : "s were") already answered by a non-retryable 4xx "
            summary += "(the queue's attempts column): \(facts.queueAttempts.levelsText(limit: limit)). "
            summary += "\(facts.policy.engine.productName) deletes a record at its \(DiagnosisFacts.ordinal(limit)) such answer"
            summary += atBrink > 0 ? ", so one more for a batch holding them deletes up to \(atBrink) record\(atBrink == 1 ? "" : "s")." : "."
            found.append(Finding(code: "queue.attempts", severity: .warning, summary: summary,
                                    evidence: [Evidence(note: "the records with the most attempts (\(facts.queueAttempts.highest))",
                                                        logIds: [], uuids: facts.queueAttempts.highestUUIDs.values)],
                                    responsible: .server,
                                    action: "Find out why the server rejects these records (its 4xx answers) and fix that, or re-send them with bgeo-forensics resync before the next rejection deletes them."))
        }
        return found
    }
}
