/// `queue.pruned`: Records evicted by maxRecords / maxDays: data loss, and why the queue reached the limit.
struct QueuePrunedRule: FindingRule {
    let code = "queue.pruned"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        for reason in facts.prunes.keys.sorted() {
            guard let tally = facts.prunes[reason] else { continue }
            let limit = reason == "maxRecords"
                ? facts.recordedConfig.int("maxRecordsToPersist").map { " (maxRecordsToPersist = \($0))" } ?? ""
                : facts.recordedConfig.int("maxDaysToPersist").map { " (maxDaysToPersist = \($0))" } ?? " (engine default: 2 days)"
            var summary = "\(tally.records) record\(tally.records == 1 ? " was" : "s were") evicted from the queue by \(reason)\(limit)"
            if let first = tally.first, let last = tally.last {
                summary += first == last ? " at \(facts.time(first))" : " in \(tally.count) prunes between \(facts.time(first)) and \(facts.time(last))"
            }
            let stalled = facts.stats.trailingFailures > 0 && (facts.stats.trailingSince?.at ?? .infinity) <= (tally.first ?? 0)
            let appLimit = reason == "maxRecords" ? facts.recordedConfig.int("maxRecordsToPersist") != nil : facts.recordedConfig.int("maxDaysToPersist") != nil
            summary += ". Data loss: these fixes were never uploaded. The eviction itself is the documented persistence limit"
            summary += appLimit ? " the app configured" : " (engine default)"
            summary += stalled ? "; the queue reached it because uploads were failing (see queue.stranded)." : "; uploads did not keep the queue below it."
            found.append(Finding(code: "queue.pruned", severity: .warning, summary: summary,
                                    evidence: [Evidence(note: "queue.prune rows", logIds: tally.rows)],
                                    responsible: stalled ? facts.strandedCause.responsible : (appLimit ? .appConfig : .expected),
                                    action: (stalled ? "Fix what stops the uploads first (queue.stranded). " : "")
                                        + "Recover the evicted fixes from the location log lines if they matter; raise \(reason == "maxRecords" ? "maxRecordsToPersist" : "maxDaysToPersist") in the app's config if the device must hold more while offline.").spanning(tally.first, tally.last))
        }
        return found
    }
}
