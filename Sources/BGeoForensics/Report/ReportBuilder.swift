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
        let (redactor, recorded) = learnSecretsAndConfig(dump, showSecrets: options.showSecrets)
        // The replay runs with the dump's config and any overrides (a bad override fails before any scan).
        var configuration = recorded
        for text in options.overrides { try configuration.apply(set: text) }
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
        let findings = ReportFindings.from(timeline: timeline, warnings: dump.warnings.all)
        var forced: Set<String> = []
        for f in findings { for e in f.evidence { forced.insert(e.anchor) } }
        var forcedUUIDs = Set(findings.flatMap(\.uuids))
        if let head = summary.queue.headUUID { forcedUUIDs.insert(head) }
        // The tables' warnings follow the reading's (which the findings count).
        var (queueRows, logRows) = picks.take()
        progress.stage("replaying \(complete.count) fixes")
        let replayed: (ReplaySummary, StoredReportTrace)
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
        replayed = try pass.finish(complete, configuration, dump: dump, queueHeadUUID: summary.queue.headUUID)
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
        for c in replay.topContributors { if let e = c.evidence { forced.insert(e.anchor) } }
        var uuidRows: [String: Int64] = [:]
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

    /// The report's replay following the live assembly's trace on its own thread while the dump
    /// is read (`ReportScan.read(traceFeed:)`). Its pass counts only when it saw the trace itself:
    /// the live assembly was the trace's only run (nothing spilled, no uuid apart) and every fix
    /// of it was replayed. The charts' time axis is not known yet: they reduce their own series.
    final class LiveReplay: @unchecked Sendable {
        let feed = LiveFeed()
        private let work: BackgroundWork<ReportReplayPass?>

        init(_ configuration: ReplayConfiguration, dump: Dump) {
            let feed = feed
            let box = UncheckedBox(dump)
            work = BackgroundWork {
                guard var pass = try? ReportReplayPass(configuration, dump: box.value, chartSpan: nil) else { return nil }
                guard let path = feed.waitForPath(), let reader = try? TapeReader(path: path, follow: feed) else {
                    pass.discard()
                    return nil
                }
                while var record = reader.next() { pass.add(Fix(from: &record)) }
                guard reader.failure == nil, !feed.wasAbandoned else {
                    pass.discard()
                    return nil
                }
                return pass
            }
        }

        /// The pass, when it replayed exactly `complete`; nil otherwise (its tape removed).
        func take(for complete: CompleteTrace) -> ReportReplayPass? {
            // The reading has ended: an unfinished feed will not be finished now.
            feed.abandon()
            guard let pass = work.take() else { return nil }
            guard complete.assembledLive, complete.assemblyRuns == 1, pass.count == complete.count else {
                pass.discard()
                return nil
            }
            return pass
        }

        /// Ends the pass unused (the reading failed).
        func cancel() {
            feed.abandon()
            work.take()?.discard()
        }
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

    /// The first and last rows of the queue and log tables, each as what the table shows of it:
    /// picked on a second connection while the dump is read (they depend on nothing the reading
    /// finds), else here. The rows the findings and the replay cite are added afterwards.
    final class TablePicks: @unchecked Sendable {
        typealias Picks = (queue: PickedRows<QueueRow, [JSONValue]>, log: PickedRows<LogEntry, LogRowShown>)
        private let scan: SecondConnectionScan<Picks>?
        private let dump: Dump
        private let cap: Int
        private let redactor: Redactor

        init(_ dump: Dump, cap: Int, redactor: Redactor) {
            self.dump = dump
            self.cap = cap
            self.redactor = redactor
            scan = SecondConnectionScan.start(on: dump) { reader in TablePicks.pick(reader, cap: cap, redactor: redactor) }
        }

        /// The picks; the second connection's warnings go to the dump's now.
        func take() -> Picks {
            scan?.finish(into: dump.warnings) ?? TablePicks.pick(dump, cap: cap, redactor: redactor)
        }

        static func pick(_ dump: Dump, cap: Int, redactor: Redactor) -> Picks {
            var queue = PickedRows<QueueRow, [JSONValue]>.none(rowId: \.rowId)
            if let table = dump.layout.queueTable {
                let picked = dump.reportRowIds(table: table, head: cap / 2, tail: cap - cap / 2)
                queue = PickedRows(ids: picked.ids, total: picked.total, rows: dump.queueRows(ids: picked.ids), rowId: \.rowId) {
                    queueCells($0, redactor: redactor)
                }
            }
            var log = PickedRows<LogEntry, LogRowShown>.none(rowId: \.rowId)
            if dump.layout.hasLog {
                let picked = dump.reportRowIds(table: "log_entries", head: cap / 2, tail: cap - cap / 2)
                log = PickedRows(ids: picked.ids, total: picked.total, rows: dump.logEntries(ids: picked.ids), rowId: \.rowId) {
                    logCells($0, redactor: redactor)
                }
            }
            return (queue, log)
        }
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
