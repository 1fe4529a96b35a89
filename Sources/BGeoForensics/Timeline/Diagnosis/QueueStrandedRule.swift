import BGeoReader

/// `queue.stranded`: Uploads keep failing and records wait in the queue; or, when the log holds no upload rows, the engine's own failure counter says so.
struct QueueStrandedRule: FindingRule {
    let code = "queue.stranded"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        let tokenNote = facts.accessTokenNote
        if facts.pendingRecords > 0, facts.stats.trailingFailures > 0, let since = facts.stats.trailingSince {
            let span = max(facts.end, facts.stats.lastAttemptAt ?? since.at) - since.at
            let stuck = facts.stats.trailingFailures >= 3 && span >= 300
            var summary = "\(facts.pendingRecords) record\(facts.pendingRecords == 1 ? " is" : "s are") waiting in the upload queue"
            if let oldest = facts.oldestPending { summary += " (the oldest recorded \(facts.time(oldest.time)))" }
            summary += stuck ? " and not draining: " : "; uploads are currently failing: "
            summary += "every upload \(facts.history.since(facts.time(since.at))) failed (\(facts.stats.trailingFailures) attempt\(facts.stats.trailingFailures == 1 ? "" : "s"), \(facts.statusList(facts.stats.trailingStatuses)))"
            let cause = facts.strandedCause
            summary += ". Why: " + cause.reason + "."
            if let incomplete = facts.history.sentence { summary += " " + incomplete }
            summary += facts.stats.lastSuccess.map { " Last successful upload: \(facts.time($0.at)) (row \($0.row))." }
                ?? " No successful upload is recorded in this log."
            var evidence = [Evidence(note: "failing responses since the last 2xx", logIds: facts.stats.trailingRows,
                                     uuids: facts.pendingUuids)]
            for note in facts.stateNotes { evidence.append(Evidence(note: note)) }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            // Only network errors: the device is offline, the queue waits for it by design.
            let offline = Set(facts.stats.trailingStatuses.keys) == [0]
            if offline, stuck { summary += " The records are safe in the queue and upload once the device is back online." }
            found.append(Finding(code: "queue.stranded", severity: stuck ? (offline ? .warning : .error) : .info,
                                    summary: summary, evidence: evidence, responsible: cause.responsible, action: cause.action).spanning(since.at, facts.stats.lastAttemptAt ?? facts.end))
        }

        // queue.stranded from the state alone, when the log holds no upload rows (logLevel
        // below info keeps only errors and warnings).
        // Only over the whole log: a window that misses the uploads does not mean the log has none.
        if facts.isWholeHistory, facts.pendingRecords > 0, facts.totalAttempts == 0, let failures = facts.state.httpFailures, failures >= 3 {
            var summary = "\(facts.pendingRecords) records are waiting in the upload queue"
            if let oldest = facts.oldestPending { summary += " (the oldest recorded \(facts.time(oldest.time)))" }
            summary += " and the engine's state counts \(failures) consecutive failed uploads"
            if let next = facts.state.nextAttemptAt { summary += ", next attempt at \(next)" }
            summary += ". The log holds no upload rows (logLevel below info?), so the failing status is not recorded: raise logLevel to 3 or more to see it."
            var evidence = [Evidence(note: "pending records", logIds: BoundedList(), uuids: facts.pendingUuids)]
            for note in facts.stateNotes { evidence.append(Evidence(note: note)) }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            found.append(Finding(code: "queue.stranded", severity: .error, summary: summary, evidence: evidence,
                                    responsible: .unknown,
                                    action: "Raise logLevel to 3 (info) or more so the next dump records the failing uploads' status; meanwhile check the url and credentials in the app's config.").spanning(facts.oldestPending?.time, facts.lastAt ?? facts.newestPending))
        }
        return found
    }
}
