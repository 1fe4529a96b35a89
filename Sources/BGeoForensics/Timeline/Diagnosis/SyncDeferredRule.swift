import BGeoReader

/// `sync.deferred`: Uploads held back by the app's config (cellular, threshold, no url).
struct SyncDeferredRule: FindingRule {
    let code = "sync.deferred"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        for reason in facts.deferrals.keys.sorted() {
            guard let tally = facts.deferrals[reason] else { continue }
            let explanation: String
            var severity = Severity.info
            var action: String
            switch reason {
            case "cellular":
                explanation = "disableAutoSyncOnCellular holds uploads back while the phone is on cellular; they drain on Wi-Fi or ethernet"
                action = "Nothing, if uploads on Wi-Fi only are intended; otherwise set disableAutoSyncOnCellular to false in the app's config."
            case "threshold":
                explanation = "autoSyncThreshold\(facts.recordedConfig.int("autoSyncThreshold").map { " (\($0))" } ?? "") holds uploads back until enough records are queued"
                action = "Nothing, if batching is intended; lower autoSyncThreshold in the app's config for fresher uploads."
            case "no_url":
                explanation = "no url is configured, so the SDK runs persist-only and uploads nothing"
                action = "Set url in the app's config (or call sync() from the app) if these fixes should reach the server."
                if facts.pendingRecords > 0 { severity = .warning }
            default:
                explanation = "reason '\(reason)'"
                action = "See the sync.deferred rows for what held the uploads back."
            }
            var summary = "Uploads were deferred \(tally.count) time\(tally.count == 1 ? "" : "s")"
            if let first = tally.first, let last = tally.last {
                summary += first == last ? " at \(facts.time(first))" : " between \(facts.time(first)) and \(facts.time(last))"
            }
            summary += ": \(explanation)."
            if let pending = tally.lastPending { summary += " Last seen with \(pending) record\(pending == 1 ? "" : "s") pending." }
            found.append(Finding(code: "sync.deferred", severity: severity, summary: summary,
                                    evidence: [Evidence(note: "sync.deferred rows (\(reason))", logIds: tally.rows)],
                                    responsible: ["cellular", "threshold", "no_url"].contains(reason) ? .appConfig : .unknown,
                                    action: action).spanning(tally.first, tally.last))
        }
        if facts.isWholeHistory, facts.deferrals["no_url"] == nil, facts.pendingRecords > 0, facts.totalAttempts == 0,
           (facts.recordedConfig.string("url") ?? "").isEmpty, case .state = facts.configSource {
            found.append(Finding(code: "sync.deferred", severity: .warning,
                                    summary: "\(facts.pendingRecords) records are queued and no upload was ever attempted: the recorded config has no url, so the SDK runs persist-only.",
                                    evidence: [Evidence(note: "state.config has no url", logIds: BoundedList(), uuids: facts.pendingUuids)],
                                    responsible: .appConfig,
                                    action: "Set url in the app's config (or call sync() from the app) if these fixes should reach the server."))
        }
        return found
    }
}
