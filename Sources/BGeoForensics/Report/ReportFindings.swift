import BGeoReader

/// The report's findings: the timeline's diagnosis (most severe first, each with its evidence
/// rows) plus one for rows the reader could not decode.
public enum ReportFindings {
    /// Evidence rows linked per finding (the rest are counted).
    public static let evidenceLimit = 5
    /// uuids listed per finding.
    public static let uuidLimit = 4

    public static func from(timeline: Timeline, warnings: WarningList) throws -> [ReportFinding] {
        var out: [ReportFinding] = timeline.findings.map { f in
            let logIds = f.allLogIds
            let uuids = f.allUuids
            var notes = f.evidence.compactMap(\.note)
            let omitted = max(0, logIds.count - evidenceLimit) + f.evidence.reduce(0) { $0 + $1.omittedLogIds } + f.omittedEvidence
            if omitted > 0 { notes.append("\(omitted) more evidence item\(omitted == 1 ? "" : "s") not listed (bgeo-forensics timeline lists them all).") }
            var seen: Set<Int64> = []
            let refs = logIds.filter { seen.insert($0).inserted }.prefix(evidenceLimit).map { EvidenceRef.log(rowId: $0) }
            let moreUuids = f.citedUuidCount - min(uuids.count, uuidLimit)
            if moreUuids > 0 { notes.append("\(moreUuids) more uuid\(moreUuids == 1 ? "" : "s") cited.") }
            return ReportFinding(code: f.code + (f.rule.map { ": " + $0 } ?? ""), severity: severity(f.severity), summary: f.summary,
                                 evidence: Array(refs), uuids: Array(uuids.prefix(uuidLimit)), notes: notes,
                                 responsible: f.responsible, action: f.action)
        }
        if !warnings.isEmpty {
            // A row can have several warnings (unreadable JSON, then not replayed): rows are counted
            // once (`WarningList.rowCount`); the first few are linked, in the warnings' order.
            var rows: [EvidenceRef] = []
            try warnings.forEach { w in
                guard rows.count < evidenceLimit, let id = w.rowId else { return }
                let ref: EvidenceRef = w.table == "log_entries" ? .log(rowId: id) : .queue(rowId: id)
                if !rows.contains(where: { $0.anchor == ref.anchor }) { rows.append(ref) }
            }
            let others = warnings.rowlessCount
            let otherText = "\(others) other input problem\(others == 1 ? "" : "s")"
            let rowCount = warnings.rowCount
            let summary = rows.isEmpty
                ? "\(otherText) found; everything else was read (see Warnings)."
                : "\(rowCount) row\(rowCount == 1 ? "" : "s") could not be read completely\(others > 0 ? " and \(otherText) found" : ""); everything else was read (see Warnings)."
            out.append(ReportFinding(code: "dump.unreadable_rows", severity: .warning, summary: summary,
                                     evidence: rows, responsible: .unknown,
                                     action: "Read the Warnings section; ask the customer for a fresh dump if these rows matter."))
        }
        return sorted(out)
    }

    static func severity(_ s: Severity) -> ReportSeverity {
        switch s {
        case .error: return .error
        case .warning: return .warning
        case .info: return .info
        }
    }

    /// Most severe first; the order within a severity is kept.
    public static func sorted(_ findings: [ReportFinding]) -> [ReportFinding] {
        findings.enumerated().sorted { a, b in
            a.element.severity != b.element.severity ? a.element.severity < b.element.severity : a.offset < b.offset
        }.map(\.element)
    }
}
