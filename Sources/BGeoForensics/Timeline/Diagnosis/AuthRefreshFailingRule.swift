import BGeoReader

/// `auth.refresh_failing`: The token refresh failed: still failing (the queue cannot drain) or recovered.
struct AuthRefreshFailingRule: FindingRule {
    let code = "auth.refresh_failing"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        let tokenNote = facts.accessTokenNote
        if facts.stats.refreshFailures > 0 {
            // Still failing unless an upload got through after the last failed refresh
            // (new tokens arrived another way, e.g. setConfig after a sign-in).
            let recoveredByUpload = facts.stats.lastSuccess.map { $0.at >= (facts.stats.lastRefreshAt ?? .infinity) } ?? false
            let ongoing = facts.stats.lastRefreshSucceeded == false && !recoveredByUpload
            var summary: String
            let refreshCause = facts.refreshFailureCause(facts.stats.refreshFailingStatuses.isEmpty ? [0: 1] : facts.stats.refreshFailingStatuses)
            if ongoing, let since = facts.stats.refreshFailingSince {
                summary = "The token refresh has failed \(facts.stats.refreshFailingCount) time\(facts.stats.refreshFailingCount == 1 ? "" : "s") in a row \(facts.history.since(facts.time(since.at))) (refresh status \(facts.statusList(facts.stats.refreshFailingStatuses))). \(refreshCause.reason), so every upload keeps getting 401/403 and the queue will not drain until that is fixed."
                if let incomplete = facts.history.sentence { summary += " " + incomplete }
            } else {
                summary = "The token refresh failed \(facts.stats.refreshFailures) time\(facts.stats.refreshFailures == 1 ? "" : "s") (\(facts.stats.refreshSuccesses) successful refresh\(facts.stats.refreshSuccesses == 1 ? "" : "es")), but uploads got through afterwards."
            }
            if let tokenNote { summary += " " + tokenNote.prefix(1).uppercased() + tokenNote.dropFirst() + "." }
            var evidence = [Evidence(note: ongoing ? "failed auth.refresh.result rows since the last success" : nil,
                                     logIds: facts.stats.refreshFailingRows)]
            for note in facts.stateNotes { evidence.append(Evidence(note: note)) }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            found.append(Finding(code: "auth.refresh_failing", severity: ongoing ? .error : .info, summary: summary,
                                    evidence: evidence, responsible: ongoing ? refreshCause.responsible : .expected,
                                    action: ongoing ? refreshCause.action : "Nothing now: uploads recovered. If it recurs, see why the refresh server refused the failed refreshes.").spanning(ongoing ? facts.stats.refreshFailingSince?.at : nil, ongoing ? facts.stats.lastRefreshAt : nil))
        }
        return found
    }
}
