/// Findings read straight from the dump: unreadable rows, failing or poisoned uploads, refresh
/// failures, a stranded queue, tracking gaps, rejected fixes. The timeline analysis finds more;
/// these rules keep a report useful when only the dump itself is at hand.
public enum ReportFindingRules {
    public static func findings(summary: DumpSummary, trace: ReportTrace, scan: ReportLogScan, gaps: [ReportGap]) -> [ReportFinding] {
        var out: [ReportFinding] = []
        // Uploads.
        if let last = scan.attempts.last, last.outcome != "success" {
            var failing: [ReportAttempt] = []
            for a in scan.attempts.reversed() {
                guard a.outcome != "success" else { break }
                failing.append(a)
            }
            failing.reverse()
            let statuses = Set(failing.compactMap(\.status)).sorted().map { $0 == 0 ? "network error" : "HTTP \($0)" }
            out.append(ReportFinding(
                code: "uploads-failing", severity: .error,
                summary: "The last \(failing.count) upload attempt\(failing.count == 1 ? "" : "s") did not succeed"
                    + (statuses.isEmpty ? "" : " (" + statuses.joined(separator: ", ") + ")")
                    + "; \(summary.queue.count) record\(summary.queue.count == 1 ? " is" : "s are") still queued.",
                evidence: failing.prefix(5).map { .log(rowId: $0.logId) } + (failing.count > 5 ? [.log(rowId: failing[failing.count - 1].logId)] : []),
                uuids: Array(failing.last?.uuids.prefix(3) ?? [])))
        }
        if !scan.drops.isEmpty {
            let records = scan.drops.reduce(0) { $0 + $1.count }
            out.append(ReportFinding(
                code: "poison-dropped", severity: .warning,
                summary: "\(records) record\(records == 1 ? " was" : "s were") dropped as poison in \(scan.drops.count) batch\(scan.drops.count == 1 ? "" : "es") (the server answered with a status the SDK never retries).",
                evidence: scan.drops.prefix(6).map { .log(rowId: $0.rowId) }))
        }
        if !scan.refreshFailures.isEmpty {
            out.append(ReportFinding(
                code: "token-refresh-failed", severity: .error,
                summary: "Token refresh failed \(scan.refreshFailures.count) time\(scan.refreshFailures.count == 1 ? "" : "s")"
                    + (scan.refreshFailures.last?.status.map { " (last status \($0))" } ?? "") + ".",
                evidence: scan.refreshFailures.prefix(6).map { .log(rowId: $0.rowId) }))
        }
        // A queue whose head is much older than the dump's newest row is stranded.
        if let oldest = summary.queue.oldestTime, let newest = summary.newestTime, newest - oldest > 6 * 3600,
           let headFix = trace.fixes.first(where: { $0.uuid == summary.queue.headUUID }) ?? nil {
            out.append(ReportFinding(
                code: "queue-stranded", severity: .warning,
                summary: "The oldest queued record is \(SVGFormat.duration(newest - oldest)) older than the dump's newest row: \(summary.queue.count) records are waiting.",
                evidence: [headFix.source], uuids: [headFix.uuid].compactMap { $0 }))
        }
        // Unreadable rows.
        if !summary.warnings.isEmpty {
            let refs: [EvidenceRef] = summary.warnings.prefix(8).compactMap { w in
                guard let id = w.rowId else { return nil }
                return w.table == "log_entries" ? .log(rowId: id) : .queue(rowId: id)
            }
            out.append(ReportFinding(
                code: "unreadable-rows", severity: .warning,
                summary: "\(summary.warnings.count) row\(summary.warnings.count == 1 ? "" : "s") could not be read completely (listed under Warnings).",
                evidence: refs))
        }
        // Gaps.
        for gap in gaps.sorted(by: { $0.seconds > $1.seconds }).prefix(5) {
            let context = gap.context.isEmpty ? "" : " Logged inside: " + gap.context.joined(separator: ", ") + "."
            let severity: ReportSeverity = gap.context.contains("session.relaunch") ? .warning : .info
            out.append(ReportFinding(
                code: "tracking-gap", severity: severity,
                summary: "No accepted fix for \(SVGFormat.duration(gap.seconds)) (\(Timestamp.format(gap.start, milliseconds: false)) → \(Timestamp.format(gap.end, milliseconds: false))).\(context)",
                evidence: []))
        }
        // Rejections.
        let rejected = trace.fixes.filter { $0.decision == .rejected }
        if !rejected.isEmpty {
            var byReason: [String: Int] = [:]
            for f in rejected { byReason[f.reason ?? "unknown", default: 0] += 1 }
            let text = byReason.keys.sorted().map { "\(byReason[$0]!) \($0)" }.joined(separator: ", ")
            out.append(ReportFinding(code: "fixes-rejected", severity: .info,
                                     summary: "The engine rejected \(rejected.count) fix\(rejected.count == 1 ? "" : "es") (\(text)).",
                                     evidence: rejected.prefix(4).map(\.source)))
        }
        return sorted(out)
    }

    /// Most severe first; the order within a severity is kept.
    public static func sorted(_ findings: [ReportFinding]) -> [ReportFinding] {
        findings.enumerated().sorted { a, b in
            a.element.severity != b.element.severity ? a.element.severity < b.element.severity : a.offset < b.offset
        }.map(\.element)
    }
}
