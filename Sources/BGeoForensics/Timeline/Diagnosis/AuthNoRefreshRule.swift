import BGeoReader

/// `auth.no_refresh`: 401/403 answers the engine cannot cure: no (complete) authorization to refresh with.
struct AuthNoRefreshRule: FindingRule {
    let code = "auth.no_refresh"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        let tokenNote = facts.accessTokenNote
        if facts.stats.unauthorizedWithoutAuth > 0 {
            let ongoing = facts.stats.lastStatus.map { facts.policy.refresh.triggerStatuses.contains($0) } ?? false
            var summary = "The server answered \(facts.statusList(facts.stats.unauthorizedStatuses)) to location uploads"
            if let first = facts.stats.unauthorizedFirst, let last = facts.stats.unauthorizedLast {
                summary += first == last ? " at \(facts.time(first))" : " between \(facts.time(first)) and \(facts.time(last))"
            }
            let action: String
            switch facts.refreshReadiness {
            case .incomplete(let missing):
                let lacks = missing.joined(separator: " and ")
                summary += ". The app configured an authorization without \(lacks), so the engine cannot refresh the token: as documented, each 401/403 is retried after the normal backoff with the same, rejected credentials. This is the app's configuration, not an engine fault."
                action = "Fix the app's authorization config: give it \(missing.map { $0 == "refreshUrl" ? "a refreshUrl (the auth server's refresh endpoint)" : "a refreshToken" }.joined(separator: " and ")), or have the app call setConfig with a valid accessToken."
            default:
                summary += ", but no authorization (token refresh) is configured, so the SDK cannot refresh the token: it keeps retrying with the same credentials."
                action = "Give the app valid credentials (headers or authorization.accessToken), or configure authorization with a refreshUrl and refreshToken so the engine can refresh on its own."
            }
            summary += ongoing ? " The latest upload still failed this way: the queue will not drain until the app sets valid credentials." : " Later uploads got through."
            var evidence = [Evidence(note: "401/403 responses", logIds: facts.stats.unauthorizedRows)]
            if case .incomplete(let missing) = facts.refreshReadiness {
                evidence.append(Evidence(note: "\(facts.configSource.description): authorization has no \(missing.joined(separator: ", "))"))
            }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            found.append(Finding(code: "auth.no_refresh", severity: ongoing ? .error : .warning, summary: summary,
                                    evidence: evidence, responsible: .appConfig, action: action).spanning(facts.stats.unauthorizedFirst, facts.stats.unauthorizedLast))
        }
        return found
    }
}
