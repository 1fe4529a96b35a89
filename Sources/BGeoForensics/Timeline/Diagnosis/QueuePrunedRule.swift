import BGeoReader

/// `queue.pruned`: Records evicted by maxRecords / maxDays: data loss, and why the queue reached the limit.
struct QueuePrunedRule: FindingRule {
    let code = "queue.pruned"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        var found: [Finding] = []
        for reason in facts.prunes.keys.sorted() {
            guard let tally = facts.prunes[reason] else { continue }
            let byRecords = reason == "maxRecords"
            let key = byRecords ? "maxRecordsToPersist" : "maxDaysToPersist"
            // The engine's defaults, as data: maxRecordsToPersist -1 (unlimited), maxDaysToPersist
            // 0 (the engine keeps 2 days). A configured value that means the default is no limit
            // the app chose.
            let configured = facts.recordedConfig.int(key)
            let appLimit = configured.map { $0 > 0 } ?? false
            let limit: String
            switch (byRecords, configured) {
            case (true, let value?): limit = " (maxRecordsToPersist = \(value))"
            case (true, nil): limit = ""
            case (false, let value?) where value <= 0: limit = " (maxDaysToPersist = \(value), which means the engine's default: 2 days)"
            case (false, let value?): limit = " (maxDaysToPersist = \(value))"
            case (false, nil): limit = " (engine default: 2 days)"
            }
            var summary = "\(tally.records) record\(tally.records == 1 ? " was" : "s were") evicted from the queue by \(reason)\(limit)"
            if let first = tally.first, let last = tally.last {
                summary += first == last ? " at \(facts.time(first))" : " in \(tally.count) prunes between \(facts.time(first)) and \(facts.time(last))"
            }
            let stalled = facts.stats.trailingFailures > 0 && (facts.stats.trailingSince?.at ?? .infinity) <= (tally.first ?? 0)
            summary += ". Data loss: these fixes were never uploaded. The eviction itself is the documented persistence limit"
            summary += appLimit ? " the app configured" : " (engine default)"
            // A long offline stretch before the prunes is why the queue aged or filled.
            let offline = tally.first.flatMap { facts.offline.longest(before: $0, last: facts.end) }
            if stalled {
                summary += "; the queue reached it because uploads were failing (see queue.stranded)."
            } else if let offline {
                let length = DurationFormat.short(offline.length(until: facts.end))
                summary += "; the queue reached it while the device was offline for \(length) ("
                summary += offline.end.map { "\(facts.time(offline.start)) → \(facts.time($0))" } ?? "from \(facts.time(offline.start)), still offline at the last row"
                summary += "), when nothing could upload."
            } else {
                summary += "; uploads did not keep the queue below it."
            }
            var rows = tally.rows
            if !stalled, let offline {
                rows = BoundedList(limit: tally.rows.limit)
                rows.append(offline.startRow)
                if let end = offline.endRow { rows.append(end) }
            }
            var evidence = [Evidence(note: "queue.prune rows", logIds: tally.rows)]
            if !stalled, offline != nil { evidence.append(Evidence(note: "connectivity rows of the offline period", logIds: rows)) }
            let recovery = facts.locationLines > 0
                ? "Recover the evicted fixes from the location log lines (\(facts.locationLines) in this dump) if they matter"
                : "This dump has no location log lines (logLevel below 4, debug), so the evicted fixes cannot be recovered from it"
            let responsible: Responsibility = stalled ? facts.strandedCause.responsible : (offline != nil ? .device : (appLimit ? .appConfig : .expected))
            found.append(Finding(code: "queue.pruned", severity: .warning, summary: summary, evidence: evidence,
                                    responsible: responsible,
                                    action: (stalled ? "Fix what stops the uploads first (queue.stranded). " : "")
                                        + recovery + "; raise \(key) in the app's config if the device must hold more while offline.").spanning(tally.first, tally.last))
        }
        return found
    }
}
