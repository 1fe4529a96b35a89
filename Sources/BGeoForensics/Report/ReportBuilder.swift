import Foundation

/// Gathers a `ReportDocument` from a dump: summary, trace, upload attempts, gaps, findings, the
/// replay section and the embedded tables (capped, evidence rows always kept). Secrets are
/// redacted unless `options.showSecrets`.
public enum ReportBuilder {
    public static func build(dump: Dump, options: ReportOptions) -> ReportDocument {
        let redactor = dump.makeRedactor(enabled: !options.showSecrets)
        let summary = DumpSummary(dump: dump, redactor: redactor)
        var config = dump.recordedConfig().config
        for o in options.overrides { config.set(path: o.key, to: o.value) }
        let trace = RecordedTraceReader.read(dump)
        let classifier: ResponseClassifier = dump.layout.format == .longping ? .longping : .bgeo
        let authConfigured = !(config["authorization"]?.objectValue?.isEmpty ?? true)
        let scan = ReportLogScan(dump: dump, classifier: classifier, authorizationConfigured: authConfigured)
        let gaps = scan.gaps(in: trace, threshold: options.gapSeconds)
        let findings = ReportFindingRules.findings(summary: summary, trace: trace, scan: scan, gaps: gaps)
        let replay = recordedSummary(trace)

        var forced: Set<String> = []
        for f in findings { for e in f.evidence { forced.insert(e.anchor) } }
        for c in replay.topContributors { if let e = c.evidence { forced.insert(e.anchor) } }
        if let head = summary.queue.headUUID, let fix = trace.fixes.first(where: { $0.uuid == head }) { forced.insert(fix.source.anchor) }
        var offsets: Set<Int> = []
        let queueTable = buildQueueTable(dump, redactor: redactor, cap: options.maxTableRows, forced: forced, offsets: &offsets)
        let logTable = buildLogTable(dump, redactor: redactor, cap: options.maxTableRows, forced: forced, offsets: &offsets)
        let attemptsTable = buildAttemptsTable(scan.attempts, cap: options.maxTableRows)
        var finalSummary = summary
        finalSummary.warnings = dump.warnings.all
        var evidenceText: [String: String] = [:]
        for table in [queueTable, logTable] {
            for (i, anchor) in table.anchors.enumerated() where forced.contains(anchor) {
                evidenceText[anchor] = oneLine(table, row: table.rows[i])
            }
        }
        return ReportDocument(
            dumpName: dump.displayName, inputs: dump.inputs, layout: dump.layout, generatedAt: options.generatedAt,
            firstTime: [summary.queue.oldestTime, summary.log.firstTime].compactMap { $0 }.min(),
            lastTime: summary.newestTime, deviceOffsets: offsets.sorted(), summary: finalSummary, trace: trace,
            attempts: scan.attempts, queueDepth: scan.queueDepth, gaps: gaps, gapSeconds: options.gapSeconds,
            findings: findings, findingsSource: "rules over the dump's queue and log",
            replay: replay, tables: [queueTable, logTable, attemptsTable],
            maxAccuracy: config.double("locationFilterMaxAccuracy") ?? 100, showSecrets: options.showSecrets,
            evidenceText: evidenceText)
    }

    /// Decision counts as the engine recorded them, and the recorded odometer span.
    static func recordedSummary(_ trace: ReportTrace) -> ReportReplaySummary {
        var counts: [(String, Int)] = [("accepted", trace.count(.accepted)), ("adjusted", trace.count(.adjusted))]
        var reasons: [String: Int] = [:]
        for f in trace.fixes where f.decision == .rejected { reasons[f.reason ?? "unknown", default: 0] += 1 }
        for r in reasons.keys.sorted() { counts.append(("rejected: \(r)", reasons[r]!)) }
        return ReportReplaySummary(title: "As recorded by the engine", counts: counts.map { (label: $0.0, count: $0.1) },
                                   notes: ["Decisions as logged in the dump (queue, location, filter.reject and filter.adjust rows)."])
    }

    static func truncate(_ text: String, _ limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    static func offset(_ text: String, into offsets: inout Set<Int>) {
        if offsets.count < 4, let o = Timestamp.offsetSeconds(text) { offsets.insert(o) }
    }

    static func buildQueueTable(_ dump: Dump, redactor: Redactor, cap: Int, forced: Set<String>, offsets: inout Set<Int>) -> ReportTable {
        var sampler = RowSampler<QueueRow>(head: cap / 2, tail: cap - cap / 2)
        var localOffsets = offsets
        dump.forEachQueueRow { row in
            sampler.add(row, force: forced.contains("queue-\(row.rowId)"))
            offset(row.timestampText, into: &localOffsets)
        }
        offsets = localOffsets
        let columns = [ReportTable.Column("row", numeric: true), .init("uuid"), .init("timestamp"), .init("kind"),
                       .init("latitude", numeric: true), .init("longitude", numeric: true), .init("accuracy m", numeric: true),
                       .init("speed m/s", numeric: true), .init("odometer m", numeric: true), .init("event"), .init("extras / record")]
        var rows: [[JSONValue]] = []
        var anchors: [String] = []
        for row in sampler.items {
            let parsed = try? JSONParser.parse(row.json)
            func num(_ path: String) -> JSONValue {
                guard let v = parsed?.value(atPath: path)?.doubleValue, v.isFinite else { return .null }
                return .double(v)
            }
            var event = parsed?["event"]?.stringValue ?? ""
            if let g = parsed?["geofence"] {
                event = "geofence " + (g["action"]?.stringValue ?? "") + " " + (g["identifier"]?.stringValue ?? "")
            }
            let extras: String
            if let parsed {
                extras = parsed["extras"].map { redactor.redact($0).jsonText } ?? ""
            } else {
                extras = "unreadable: " + redactor.redact(text: row.json)
            }
            rows.append([.int(row.rowId), .string(row.uuid), .string(row.timestampText), .string(row.kind.rawValue),
                         num("coords.latitude"), num("coords.longitude"), num("coords.accuracy"), num("coords.speed"),
                         num("odometer"), .string(redactor.redact(text: event)), .string(truncate(extras, 400))])
            anchors.append("queue-\(row.rowId)")
        }
        return ReportTable(id: "queue", title: "Queue (pending records, drain order)", columns: columns, rows: rows,
                           anchors: anchors, total: sampler.seen,
                           note: sampler.seen > rows.count ? note(rows.count, sampler.seen, "locations") : nil)
    }

    static func note(_ shown: Int, _ total: Int, _ command: String) -> String {
        "Showing \(shown) of \(total) rows (the first and last ones, and every row a finding cites). Full data: `bgeo-forensics \(command) DUMP --format csv`."
    }

    static func buildLogTable(_ dump: Dump, redactor: Redactor, cap: Int, forced: Set<String>, offsets: inout Set<Int>) -> ReportTable {
        var sampler = RowSampler<LogEntry>(head: cap / 2, tail: cap - cap / 2)
        var localOffsets = offsets
        dump.forEachLogEntry { entry in
            sampler.add(entry, force: forced.contains("log-\(entry.rowId)"))
            offset(entry.tsText, into: &localOffsets)
        }
        offsets = localOffsets
        let columns = [ReportTable.Column("row", numeric: true), .init("ts"), .init("level"), .init("src"), .init("event"),
                       .init("message"), .init("data")]
        var rows: [[JSONValue]] = []
        var anchors: [String] = []
        for e in sampler.items {
            let data = e.data.map { redactor.redact($0).jsonText } ?? e.dataText.map { redactor.redact(text: $0) } ?? ""
            rows.append([.int(e.rowId), .string(e.tsText), .string(e.levelName), .string(e.src), .string(e.event),
                         .string(truncate(redactor.redact(text: e.message ?? ""), 400)), .string(truncate(data, 600))])
            anchors.append("log-\(e.rowId)")
        }
        return ReportTable(id: "log", title: "Log", columns: columns, rows: rows, anchors: anchors, total: sampler.seen,
                           note: sampler.seen > rows.count ? note(rows.count, sampler.seen, "logs") : nil)
    }

    static func buildAttemptsTable(_ attempts: [ReportAttempt], cap: Int) -> ReportTable {
        var sampler = RowSampler<ReportAttempt>(head: cap / 2, tail: cap - cap / 2)
        for a in attempts { sampler.add(a, force: false) }
        let columns = [ReportTable.Column("log row", numeric: true), .init("time"), .init("records", numeric: true),
                       .init("status", numeric: true), .init("outcome"), .init("backoff s", numeric: true), .init("uuids")]
        var rows: [[JSONValue]] = []
        var anchors: [String] = []
        for a in sampler.items {
            let uuids = a.uuids.prefix(3).joined(separator: " ") + (a.uuids.count > 3 ? " … (+\(a.uuids.count - 3))" : "")
            rows.append([.int(a.logId), .string(Timestamp.format(a.time)), .int(Int64(a.count)), .from(a.status),
                         .string(a.outcome), .from(a.backoffDelay), .string(uuids)])
            anchors.append("attempt-\(a.logId)")
        }
        return ReportTable(id: "attempts", title: "Upload attempts", columns: columns, rows: rows, anchors: anchors,
                           total: attempts.count,
                           note: attempts.count > rows.count ? note(rows.count, attempts.count, "logs --event 'http.*'") : nil)
    }

    /// A row as one line of text for a finding's evidence list.
    static func oneLine(_ table: ReportTable, row: [JSONValue]) -> String {
        let picks: [Int] = table.id == "queue" ? [2, 3, 1, 9] : [1, 2, 4, 5, 6]
        return picks.compactMap { i -> String? in
            guard i < row.count else { return nil }
            switch row[i] {
            case .string(let s): return s.isEmpty ? nil : truncate(s, 160)
            case .null: return nil
            default: return row[i].jsonText
            }
        }.joined(separator: " · ")
    }
}
