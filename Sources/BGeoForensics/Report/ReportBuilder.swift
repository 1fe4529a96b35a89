import Foundation

/// Gathers a `ReportDocument` from a dump: summary, trace, upload attempts, gaps, findings, the
/// replay section and the embedded tables (capped, evidence rows always kept). Secrets are
/// redacted unless `options.showSecrets`.
public enum ReportBuilder {
    /// Builds the document, telling `progress` each stage. Throws a UsageError for an override
    /// replay cannot use.
    public static func build(dump: Dump, options: ReportOptions, progress: StageProgress = .silent) throws -> ReportDocument {
        progress.stage("learning the dump's secrets (to redact them)")
        let (redactor, recorded) = learnSecretsAndConfig(dump, showSecrets: options.showSecrets)
        // The replay runs with the dump's config and any overrides (a bad override fails before any scan).
        var configuration = recorded
        for text in options.overrides { try configuration.apply(set: text) }
        progress.stage("reading the log and the queue")
        let scan = try ReportScan.read(dump, gapSeconds: options.gapSeconds, redactor: redactor)
        let timeline = scan.timeline
        let complete = scan.trace
        let depthLevels = scan.depthLevels
        var summary = ReportOverview(dump: dump, queue: complete.queue, timeline: timeline, redactor: redactor)
        let firstTime = [summary.queue.oldestTime, summary.log.firstTime].compactMap { $0 }.min()
        let findings = ReportFindings.from(timeline: timeline, warnings: dump.warnings.all)
        var forced: Set<String> = []
        for f in findings { for e in f.evidence { forced.insert(e.anchor) } }
        var forcedUUIDs = Set(findings.flatMap(\.uuids))
        if let head = summary.queue.headUUID { forcedUUIDs.insert(head) }
        // The tables' rows are read from the dump while the replay (which reads only its tape)
        // runs; only the replay's few top contributors are added to them afterwards.
        let picking = BackgroundWork { [forced, forcedUUIDs] in
            (queue: pickQueueRows(dump, cap: options.maxTableRows, forced: forced, forcedUUIDs: forcedUUIDs, redactor: redactor),
             log: pickLogRows(dump, cap: options.maxTableRows, forced: forced, redactor: redactor))
        }
        progress.stage("replaying \(complete.count) fixes")
        // Device offsets: any fix timestamp written with a UTC offset instead of Z (cheap: last byte).
        var offsets: Set<Int> = []
        let replayed: (ReplaySummary, StoredReportTrace)
        do {
            replayed = try replay(complete, configuration, dump: dump, queueHeadUUID: summary.queue.headUUID,
                                  chartSpan: FixChartSeries.span(first: firstTime, last: summary.newestTime)) { fix in
                guard offsets.count < 4, let last = fix.timestampText.utf8.last, last != UInt8(ascii: "Z"), last != UInt8(ascii: "z") else { return }
                offset(fix.timestampText, into: &offsets)
            }
        } catch {
            _ = picking.take()
            throw error
        }
        let (result, trace) = replayed
        let attempts = timeline.attempts.map { a in
            ReportAttempt(time: a.at, logId: a.logId, count: a.count, status: a.status, outcome: a.outcome?.rawValue ?? "pending",
                          uuids: a.uuids, backoffDelay: a.backoffDelay, refreshSucceeded: a.refresh?.success)
        }
        let gaps = timeline.gaps.map { g -> ReportGap in
            var kinds: [String] = []
            for e in g.contextEvents where !kinds.contains(e.kind.rawValue) { kinds.append(e.kind.rawValue) }
            return ReportGap(start: g.start, end: g.end, context: kinds)
        }
        let depth = QueueDepthSeries.build(levels: depthLevels, attempts: timeline.attempts, pendingAtDump: summary.queue.count,
                                           dumpTime: summary.newestTime)
        let replay = replaySummary(result)

        progress.stage("picking the table rows")
        var (queueRows, logRows) = picking.take()
        var contributors: Set<String> = []
        for c in replay.topContributors { if let e = c.evidence { contributors.insert(e.anchor) } }
        queueRows.add(ids: rowIds(contributors, prefix: "queue-"), from: dump.queueRows(ids:)) { queueCells($0, redactor: redactor) }
        logRows.add(ids: rowIds(contributors, prefix: "log-"), from: dump.logEntries(ids:)) { logCells($0, redactor: redactor) }
        forced.formUnion(contributors)
        let uuidAnchors = queueRows.uuidRows.mapValues { "queue-\($0)" }
        let queueTable = buildQueueTable(queueRows, offsets: &offsets)
        let logTable = buildLogTable(logRows, offsets: &offsets)
        let attemptsTable = buildAttemptsTable(attempts, cap: options.maxTableRows)
        let inputs = dump.inputs  // hashed beside the scans; a failure is a warning, so before the list
        summary.warnings = dump.warnings.all
        var evidenceText: [String: String] = [:]
        for table in [queueTable, logTable] {
            for (i, anchor) in table.anchors.enumerated() where forced.contains(anchor) || uuidAnchors.values.contains(anchor) {
                evidenceText[anchor] = i < table.evidenceLines.count ? table.evidenceLines[i] : oneLine(table, row: table.rows[i])
            }
        }
        return ReportDocument(
            dumpName: dump.displayName, inputs: inputs, layout: dump.layout, generatedAt: options.generatedAt,
            firstTime: firstTime,
            lastTime: summary.newestTime, deviceOffsets: offsets.sorted(), summary: summary, trace: trace,
            attempts: attempts, queueDepth: depth, gaps: gaps, gapSeconds: options.gapSeconds,
            findings: findings, findingsSource: "the timeline analysis (bgeo-forensics timeline) against the \(timeline.policy.rawValue) upload policy",
            replay: replay, tables: [queueTable, logTable, attemptsTable],
            maxAccuracy: result.config.locationFilterMaxAccuracy, showSecrets: options.showSecrets,
            evidenceText: evidenceText, uuidAnchors: uuidAnchors,
            mapNote: "Decisions from a replay of the complete trace with \(configuration.sourceDescription) (\(result.engineDisagreements) disagree with the engine's own).",
            sanitized: timeline.sanitized, sketch: trace.sketch)
    }

    /// The redactor and the recorded replay configuration. Both read the `config` log lines: when
    /// the redactor reads them and the config is `state.config` (known before any line, no
    /// warning of its own), one scan serves both; otherwise each reads them as on its own.
    static func learnSecretsAndConfig(_ dump: Dump, showSecrets: Bool) -> (Redactor, ReplayConfiguration) {
        guard !showSecrets, dump.engineState().config != nil else {
            return (dump.makeRedactor(enabled: !showSecrets), ReplayConfiguration.recorded(from: dump))
        }
        var lines = ReplayConfiguration.ConfigLines(dump.recordedConfig())
        let redactor = dump.makeRedactor(enabled: true, configLines: { lines.add($0) })
        return (redactor, lines.configuration)
    }

    /// The replay section: decision counts, odometers, top contributors, diagnosis.
    static func replaySummary(_ r: ReplaySummary) -> ReportReplaySummary {
        let counts: [(label: String, count: Int)] = [
            ("fixes replayed", r.fixCount), ("accepted", r.accepted), ("adjusted", r.adjusted),
            ("rejected: accuracy", r.rejectedAccuracy), ("rejected: time", r.rejectedTime),
            ("rejected: teleport", r.rejectedTeleport), ("disagree with engine", r.engineDisagreements),
        ]
        let top = r.topContributors(limit: 5).map { c -> (label: String, metres: Double, evidence: EvidenceRef?) in
            let ref: EvidenceRef? = c.rowId.map { .queue(rowId: $0) } ?? c.logId.map { .log(rowId: $0) }
            var label = "\(c.timestampText) \(c.label)"
            if let v = c.impliedSpeed { label += " (step at \(DecimalText.format(v, places: 1)) m/s)" }
            return (label, c.distanceAdded, ref)
        }
        var notes = ["Config: \(r.configSource); \(r.config.summary)."]
        notes += r.configNotes
        notes += r.diagnosis
        return ReportReplaySummary(title: r.isWhatIf ? "What-if replay" : "Replay with the dump's config", counts: counts,
                                   odometerRecorded: r.odometerRecorded, odometerReplayed: r.odometerReplayed,
                                   topContributors: top, notes: notes)
    }

    /// One replay pass over the stored trace: the summary, and the report's trace (every fix with
    /// its decision) written to a tape beside it, with its counts and the drawings' first pass
    /// (`chartSpan`: the charts' time axis); `visit` sees each fix.
    static func replay(_ complete: CompleteTrace, _ configuration: ReplayConfiguration, dump: Dump, queueHeadUUID: String?,
                       chartSpan: (start: Double, end: Double)?, visit: (Fix) -> Void) throws -> (ReplaySummary, StoredReportTrace) {
        let tape = dump.workFiles.newFile("report-trace", extension: "tape")
        let writer = try TapeWriter(path: tape)
        var tally = ReplayTally(config: configuration.filter)
        var pipeline = ReplayPipeline(config: configuration.filter)
        var accepted = 0, adjusted = 0, rejected = 0
        var sketch = ReportTraceSketch(chartSpan: chartSpan)
        try complete.forEachFix { fix in
            visit(fix)
            let d = pipeline.process(fix)
            tally.add(fix, d)
            let reportFix = ReportFix(fix: fix, decision: d)
            switch reportFix.decision {
            case .accepted: accepted += 1
            case .adjusted: adjusted += 1
            case .rejected: rejected += 1
            }
            sketch.add(reportFix)
            writer.beginRecord()
            reportFix.write(to: writer)
            writer.endRecord()
        }
        try writer.finish()
        var summary = tally.finish(odometerReplayed: pipeline.odometerTotal)
        let counts: [ReportDecision: Int] = [.accepted: accepted, .adjusted: adjusted, .rejected: rejected]
        summary.configSource = configuration.sourceDescription
        summary.configNotes = configuration.notes
        summary.traceStats = complete.stats
        summary.isWhatIf = !configuration.overrides.isEmpty
        let stored = StoredTrace<ReportFix>(tape: tape, count: complete.count, geofences: nil, geofenceCount: 0)
        let trace = StoredReportTrace(dump: dump, stored: stored, geofences: try complete.geofences(), queueHeadUUID: queueHeadUUID,
                                      counts: counts, sketch: sketch)
        return (summary, trace)
    }

    static func truncate(_ text: String, _ limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    static func offset(_ text: String, into offsets: inout Set<Int>) {
        if offsets.count < 4, let o = Timestamp.offsetSeconds(text) { offsets.insert(o) }
    }

    /// The anchors' row ids in one table (`queue-12` → 12 for the prefix `queue-`).
    static func rowIds(_ anchors: Set<String>, prefix: String) -> Set<Int64> {
        Set(anchors.compactMap { $0.hasPrefix(prefix) ? Int64($0.dropFirst(prefix.count)) : nil })
    }

    /// The queue rows the table shows (its first and last ones, the rows `forced` names and the
    /// rows of `forcedUUIDs`), each as its cells.
    static func pickQueueRows(_ dump: Dump, cap: Int, forced: Set<String>, forcedUUIDs: Set<String>,
                              redactor: Redactor) -> PickedRows<QueueRow, [JSONValue]> {
        guard let table = dump.layout.queueTable else { return .none(rowId: \.rowId) }
        let picked = dump.reportRowIds(table: table, head: cap / 2, tail: cap - cap / 2, ids: rowIds(forced, prefix: "queue-"),
                                       uuids: forcedUUIDs)
        return PickedRows(ids: picked.ids, total: picked.total, uuidRows: picked.uuidRows, rows: dump.queueRows(ids: picked.ids),
                          rowId: \.rowId) { queueCells($0, redactor: redactor) }
    }

    /// The log rows the table shows (its first and last ones and the rows `forced` names), each
    /// as its cells and its line of evidence text.
    static func pickLogRows(_ dump: Dump, cap: Int, forced: Set<String>, redactor: Redactor) -> PickedRows<LogEntry, LogRowShown> {
        guard dump.layout.hasLog else { return .none(rowId: \.rowId) }
        let picked = dump.reportRowIds(table: "log_entries", head: cap / 2, tail: cap - cap / 2, ids: rowIds(forced, prefix: "log-"),
                                       uuids: [])
        return PickedRows(ids: picked.ids, total: picked.total, uuidRows: picked.uuidRows, rows: dump.logEntries(ids: picked.ids),
                          rowId: \.rowId) { logCells($0, redactor: redactor) }
    }

    /// A queue row's cells in the table.
    static func queueCells(_ row: QueueRow, redactor: Redactor) -> [JSONValue] {
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
        return [.int(row.rowId), .string(row.uuid), .string(row.timestampText), .string(row.kind.rawValue),
                num("coords.latitude"), num("coords.longitude"), num("coords.accuracy"), num("coords.speed"),
                num("odometer"), .string(redactor.redact(text: event)), .string(truncate(extras, 400))]
    }

    static func buildQueueTable(_ picked: PickedRows<QueueRow, [JSONValue]>, offsets: inout Set<Int>) -> ReportTable {
        for (row, _) in picked.rows { offset(row.timestampText, into: &offsets) }
        let columns = [ReportTable.Column("row", numeric: true), .init("uuid"), .init("timestamp"), .init("kind"),
                       .init("latitude", numeric: true), .init("longitude", numeric: true), .init("accuracy m", numeric: true),
                       .init("speed m/s", numeric: true), .init("odometer m", numeric: true), .init("event"), .init("extras / record")]
        let cells = picked.rows.map(\.shown)
        return ReportTable(id: "queue", title: "Queue (pending records, drain order)", columns: columns, rows: cells,
                           anchors: picked.rows.map { "queue-\($0.row.rowId)" }, total: picked.total,
                           note: picked.total > cells.count ? note(cells.count, picked.total, "locations") : nil)
    }

    static func note(_ shown: Int, _ total: Int, _ command: String) -> String {
        "Showing \(shown) of \(total) rows (the first and last ones, and every row a finding cites). Full data: `bgeo-forensics \(command) DUMP --format csv`."
    }

    /// What the log table shows of a row: its cells, and its line under a finding that cites it.
    typealias LogRowShown = (cells: [JSONValue], line: String)

    static func logCells(_ e: LogEntry, redactor: Redactor) -> LogRowShown {
        let redacted = e.data.map { redactor.redact($0) }
        let data = redacted?.jsonText ?? e.dataText.map { redactor.redact(text: $0) } ?? ""
        let message = redactor.redact(text: e.message ?? "")
        let cells: [JSONValue] = [.int(e.rowId), .string(e.tsText), .string(e.levelName), .string(e.src), .string(e.event),
                                  .string(truncate(message, 400)), .string(truncate(data, 600))]
        let words = redacted.map(readable) ?? data
        let line = [e.tsText, e.levelName, e.event, truncate(message, 160), truncate(words, 240)]
            .filter { !$0.isEmpty }.joined(separator: " · ")
        return (cells, line)
    }

    static func buildLogTable(_ picked: PickedRows<LogEntry, LogRowShown>, offsets: inout Set<Int>) -> ReportTable {
        for (e, _) in picked.rows { offset(e.tsText, into: &offsets) }
        let columns = [ReportTable.Column("row", numeric: true), .init("ts"), .init("level"), .init("src"), .init("event"),
                       .init("message"), .init("data")]
        let rows = picked.rows.map(\.shown.cells)
        var table = ReportTable(id: "log", title: "Log", columns: columns, rows: rows, anchors: picked.rows.map { "log-\($0.row.rowId)" },
                                total: picked.total, note: picked.total > rows.count ? note(rows.count, picked.total, "logs") : nil)
        table.evidenceLines = picked.rows.map(\.shown.line)
        return table
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
                         .string(a.result.label), .from(a.backoffDelay), .string(uuids)])
            anchors.append("attempt-\(a.logId)")
        }
        return ReportTable(id: "attempts", title: "Upload attempts", columns: columns, rows: rows, anchors: anchors,
                           total: attempts.count,
                           note: attempts.count > rows.count ? note(rows.count, attempts.count, "logs --event 'http.*'") : nil)
    }

    /// A log row's `data` in words: `status 401, count 1, response {"error":"token_expired"}` —
    /// string values as they are (a JSON body kept as a string is shown as that JSON, not with
    /// its quotes escaped), other values as compact JSON.
    static func readable(_ data: JSONValue) -> String {
        guard let object = data.objectValue else { return data.stringValue ?? data.jsonText }
        return object.map { member in
            member.key + " " + (member.value.stringValue ?? member.value.jsonText)
        }.joined(separator: ", ")
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
