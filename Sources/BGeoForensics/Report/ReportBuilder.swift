import BGeoReader
import Foundation

/// Gathers a `ReportDocument` from a dump: summary, trace, upload attempts, gaps, findings, the
/// replay section and the embedded tables (capped, evidence rows always kept). Secrets are
/// redacted unless `options.showSecrets`.
public enum ReportBuilder {
    /// Builds the document, telling `progress` each stage. Throws a UsageError for an override
    /// replay cannot use.
    public static func build(dump: Dump, options: ReportOptions, progress: StageProgress = .silent) throws -> ReportDocument {
        try build(dump: dump, options: options, progress: progress, windows: .standard)
    }

    /// `build`, with the streamed trace's windows, and without following the live trace when
    /// `followsLiveTrace` is false (the tests force every path).
    static func build(dump: Dump, options: ReportOptions, progress: StageProgress, windows: TraceWindows,
                      followsLiveTrace: Bool = true) throws -> ReportDocument {
        progress.stage("learning the dump's secrets (to redact them)")
        let (redactor, recorded) = SecretsAndConfig.learnedNow(dump, showSecrets: options.showSecrets)
        // The replay runs with the dump's config and any overrides.
        let configuration = try ReplayOverrides(configFile: nil, sets: options.overrides).applied(to: recorded)
        progress.stage("reading the log and the queue")
        // The tables' first and last rows are picked, and the replay follows the trace as the
        // reading assembles it, each on its own thread.
        let picks = TablePicks(dump, cap: options.maxTableRows, redactor: redactor)
        let live = followsLiveTrace ? LiveReplay(configuration, dump: dump) : nil
        let scan: ReportScan
        do {
            scan = try ReportScan.read(dump, gapSeconds: options.gapSeconds, redactor: redactor, windows: windows, traceFeed: live?.feed)
        } catch {
            live?.cancel()
            _ = picks.take()
            throw error
        }
        let timeline = scan.timeline
        let complete = scan.trace
        let depthLevels = scan.depthLevels
        var summary = ReportOverview(dump: dump, queue: complete.queue, timeline: timeline, redactor: redactor)
        let firstTime = [summary.queue.oldestTime, summary.log.firstTime].compactMap { $0 }.min()
        let findings = try ReportFindings.from(timeline: timeline, warnings: dump.warnings.list())
        var forced: Set<String> = []
        for f in findings { for e in f.evidence { forced.insert(e.anchor) } }
        var forcedUUIDs = Set(findings.flatMap(\.uuids).map { ExactText($0) })
        if let head = summary.queue.headUUID { forcedUUIDs.insert(ExactText(head)) }
        // The tables' warnings follow the reading's (which the findings count).
        var (queueRows, logRows) = picks.take()
        progress.stage("replaying \(complete.count) fixes")
        // The live replay is used when it saw the trace itself; otherwise the stored trace is replayed.
        var pass: ReportReplayPass
        if let followed = live?.take(for: complete) {
            pass = followed
        } else {
            pass = try ReportReplayPass(configuration, dump: dump,
                                        chartSpan: FixChartSeries.span(first: firstTime, last: summary.newestTime))
            try complete.forEachFix { pass.add($0) }
        }
        var offsets = pass.offsets
        let (result, trace) = try pass.finish(complete, configuration, dump: dump, queueHeadUUID: summary.queue.headUUID)
        let attempts = timeline.attempts.map { a in
            ReportAttempt(time: a.at, logId: a.logId, count: a.count, status: a.status, outcome: a.outcome?.rawValue ?? "pending",
                          uuids: a.uuids, backoffDelay: a.backoffDelay, refreshSucceeded: a.refresh?.success)
        }
        // The chart's bands: when and how long (each gap's context is in the findings and the timeline).
        let gaps = timeline.gaps.map { ReportGap(start: $0.start, end: $0.end) }
        let depth = QueueDepthSeries.Series(stored: depthLevels, attempts: timeline.attempts, pendingAtDump: summary.queue.count,
                                            dumpTime: summary.newestTime)
        let replay = replaySummary(result)

        progress.stage("picking the table rows")
        for c in replay.topContributors { if let e = c.evidence { forced.insert(e.anchor) } }
        var uuidRows: [ExactText: Int64] = [:]
        var queueIds = rowIds(forced, prefix: "queue-")
        if let table = dump.layout.queueTable {
            let found = dump.rowIds(ofUUIDs: forcedUUIDs, table: table)
            queueIds.formUnion(found.ids)
            uuidRows = found.uuidRows
        }
        queueRows.add(ids: queueIds, from: dump.queueRows(ids:)) { queueCells($0, redactor: redactor) }
        logRows.add(ids: rowIds(forced, prefix: "log-"), from: dump.logEntries(ids:)) { logCells($0, redactor: redactor) }
        let uuidAnchors = uuidRows.mapValues { "queue-\($0)" }
        let queueTable = buildQueueTable(queueRows, offsets: &offsets)
        let logTable = buildLogTable(logRows, offsets: &offsets)
        let attemptsTable = buildAttemptsTable(attempts, cap: options.maxTableRows)
        let inputs = dump.inputs  // hashed beside the scans; a failure is a warning, so before the list
        summary.warnings = try dump.warnings.list()
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

    static func truncate(_ text: String, _ limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    static func offset(_ text: String, into offsets: inout Set<Int>) {
        if offsets.count < 4, let o = Timestamp.offsetSeconds(text) { offsets.insert(o) }
    }

    static func buildAttemptsTable(_ attempts: [ReportAttempt], cap: Int) -> ReportTable {
        var sampler = RowSampler<ReportAttempt>(head: cap / 2, tail: cap - cap / 2)
        for a in attempts { sampler.add(a, force: false) }
        let columns = [ReportTable.Column("log row", numeric: true), .init("time", identifier: true), .init("records", numeric: true),
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
