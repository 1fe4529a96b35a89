import BGeoReader

/// `timeline --format timesketch`: the timeline as JSON Lines that Timesketch imports as they are
/// (its JSONL import wants `message`, `datetime` with an offset and `timestamp_desc` on every line).
///
/// One line per log row in the timeline's window, per upload attempt, token refresh, backoff,
/// prune and drop, per tracking gap and per finding. Every line has the same keys, null where one
/// does not apply (one schema for Timesketch's index, DuckDB or pandas):
/// `message`, `datetime` (`2026-07-23T08:36:18.123+00:00`), `timestamp` (the same instant in
/// microseconds, as Timesketch stores it), `timestamp_desc` (a `Kind`), `event` (the log event of the
/// row `log_row_id` names), `log_row_id`, `level` (of that row), `uuid` (the record uuids the line
/// is about, space-separated: as many as fit in 32,000 bytes, `TimesketchUUIDField`), `status`
/// (HTTP), `finding_code`, `severity`, `responsible` (findings), `sha256` (of the dump file).
///
/// Order: the log's rows oldest first (row id order, as the timeline reads them), each followed by
/// the events it records (its upload attempt, refresh, backoff, prune or drop); each gap and finding
/// is written before the first row later than it (the rest at the end). A log written in time order
/// therefore gives a file in time order; Timesketch sorts by `datetime` anyway.
///
/// Memory stays flat: log rows are read one at a time (`Dump.forEachLogEntry`) and each line is
/// written as its row is read; only the timeline's own bounded lists (attempts, gaps, findings)
/// are held.
///
/// Text is redacted by `redactor`, the one the timeline was built with: a row's message and data
/// as `logs` shows them, the attempts', gaps' and findings' words as `timeline --json` shows them
/// (the builder redacted those already). The writer adds no other dump text.
public struct TimelineTimesketchWriter {
    /// What a line's time is (`timestamp_desc`).
    public enum Kind: String, Sendable, CaseIterable {
        case logRow = "Log row written"
        case uploadAttempt = "Upload attempt"
        case tokenRefresh = "Token refresh"
        case backoff = "Backoff"
        case prune = "Prune"
        case drop = "Records dropped"
        case gapStart = "Gap start"
        case finding = "Finding"
    }

    /// What was written, for the command's notes on stderr.
    public struct Summary: Sendable, Equatable {
        /// Lines written, by kind.
        public var lines: [Kind: Int] = [:]
        /// Lines left out because their time cannot be written as a date (a broken number).
        public var notATime = 0
        /// Findings with no time of their own, citing nothing timed, in a dump whose window has no log row.
        public var untimedFindings = 0
    }

    public let timeline: Timeline
    public let dump: Dump
    public let redactor: Redactor
    /// Only the finding lines (`--findings-only`).
    public var findingsOnly: Bool
    /// A row's message and data are cut past this many characters (after redaction, so a cut
    /// never shows part of a secret): Timesketch shows a message in a list, and `logs` has them whole.
    public var messageLimit = 10_000

    /// A writer for `timeline`, built from `dump` with `redactor` (the builder's).
    public init(timeline: Timeline, dump: Dump, redactor: Redactor, findingsOnly: Bool = false) {
        self.timeline = timeline
        self.dump = dump
        self.redactor = redactor
        self.findingsOnly = findingsOnly
    }

    /// Writes every line to `output` (flushed at the end).
    public func write(to output: TextOutput) -> Summary {
        var summary = Summary()
        let jsonWriter = JSONWriter()
        let sha256 = timeline.inputs.first.map { JSONValue.string($0.sha256) } ?? .null
        func emit(_ line: Line?) {
            guard let line else { return }
            guard let object = line.object(sha256: sha256) else {
                summary.notATime += 1
                return
            }
            output.jsonLine(jsonWriter.string(.object(object)))
            summary.lines[line.kind, default: 0] += 1
        }

        // Gaps and findings have a time but no row: merged in by time.
        var timed: [Line] = findingsOnly ? [] : timeline.gaps.map(gapLine)
        for finding in timeline.findings {
            if let line = findingLine(finding) { timed.append(line) } else { summary.untimedFindings += 1 }
        }
        // Stable: a gap and a finding at the same instant keep gaps first, findings in severity order.
        timed = timed.sortedStably(byTime: \.at)
        var nextTimed = 0

        if !findingsOnly {
            var attemptAtRow: [Int64: Int] = [:]
            for (index, attempt) in timeline.attempts.enumerated() { attemptAtRow[attempt.logId] = index }
            var written = Set<Int>()
            var scrubber = SecretScrubber(redactor: redactor)
            let query = LogQuery(order: .oldestFirst, since: timeline.since, until: timeline.until)
            dump.forEachLogEntry(query) { entry in
                while nextTimed < timed.count, timed[nextTimed].at < entry.time {
                    emit(timed[nextTimed])
                    nextTimed += 1
                }
                let fields = entry.withData { TimesketchRowFields(data: $0, redactor: redactor) }
                emit(logRowLine(entry, fields: fields, scrubber: &scrubber))
                if let index = attemptAtRow[entry.rowId] {
                    emit(attemptLine(timeline.attempts[index], event: entry.event, level: entry.levelName))
                    written.insert(index)
                }
                emit(recordedLine(entry, fields: fields))
            }
            // An attempt whose row this read did not meet: the private copy does not change, but a
            // damaged page may read differently the second time. Written late rather than lost.
            for (index, attempt) in timeline.attempts.enumerated() where !written.contains(index) {
                emit(attemptLine(attempt, event: nil, level: nil))
            }
        }
        while nextTimed < timed.count {
            emit(timed[nextTimed])
            nextTimed += 1
        }
        output.flush()
        return summary
    }

    // MARK: lines

    /// One line before it is written: its time and the fields that vary.
    struct Line {
        var kind: Kind
        var at: Double
        var message: String
        var event: String?
        var logRowId: Int64?
        var level: String?
        var uuids = TimesketchUUIDField()
        var status: Int?
        var finding: Finding?

        /// The line's object, nil when `at` cannot be written as a date.
        func object(sha256: JSONValue) -> JSONObject? {
            guard let datetime = TimelineTimesketchWriter.datetime(at) else { return nil }
            return JSONObject([
                ("message", .string(message + uuids.note)),
                ("datetime", .string(datetime)),
                ("timestamp", .int(TimelineTimesketchWriter.microseconds(at))),
                ("timestamp_desc", .string(kind.rawValue)),
                ("event", event.map { .string($0) } ?? .null),
                ("log_row_id", logRowId.map { .int($0) } ?? .null),
                ("level", level.map { .string($0) } ?? .null),
                ("uuid", uuids.listed == 0 ? .null : .string(uuids.text)),
                ("status", status.map { .int(Int64($0)) } ?? .null),
                ("finding_code", finding.map { .string($0.code) } ?? .null),
                ("severity", finding.map { .string($0.severity.name) } ?? .null),
                ("responsible", finding.map { .string($0.responsible.rawValue) } ?? .null),
                ("sha256", sha256),
            ])
        }
    }

    /// `2026-07-23T08:36:18.123+00:00`: the timeline's UTC time with its offset spelled out, the
    /// form Timesketch's documentation gives. Nil for a number that is not a time.
    static func datetime(_ seconds: Double) -> String? {
        guard Timestamp.isTime(seconds) else { return nil }
        let text = Timestamp.format(seconds)
        guard text.hasSuffix("Z") else { return nil }
        return String(text.dropLast()) + "+00:00"
    }

    /// The instant in whole microseconds, from the same milliseconds `datetime` shows (so the two
    /// never disagree by a rounding).
    static func microseconds(_ seconds: Double) -> Int64 {
        guard Timestamp.isTime(seconds) else { return 0 }
        return Int64((seconds * 1000).rounded(.down)) * 1000
    }

    /// A row's data, redacted as `logs` shows it: JSON structurally (sensitive keys, header
    /// values) and as text, anything else as text. JSON is redacted as it is read
    /// (`RedactedJSONText`), only as far as `bytes`; `complete` says whether the text is whole.
    private func redactedData(_ entry: LogEntry, bytes: Int) -> (text: String, complete: Bool)? {
        guard let raw = entry.dataText else { return nil }
        if let shown = RedactedJSONText.shown(raw, redactor: redactor, bytes: bytes) { return (shown.json, shown.jsonComplete) }
        return (redactor.redact(text: raw), true)
    }

    /// "http.response: upload answered {"status":401,…}", cut at `messageLimit` characters. The
    /// data is read only as far as the cut needs (four bytes a character, and some): a start
    /// holding two characters more than the cut cuts as the whole text would; a shorter one (a
    /// text of long clusters) is read whole.
    private func logRowLine(_ entry: LogEntry, fields: TimesketchRowFields, scrubber: inout SecretScrubber) -> Line {
        let event = redactor.redact(text: entry.event)
        var head = event.isEmpty ? "(no event)" : event
        if let message = entry.message, !message.isEmpty { head += ": " + scrubber.scrub(cachedBody: message) }
        var text = head
        var whole = true
        if let start = redactedData(entry, bytes: 4 * (messageLimit + 8)) {
            text += " " + start.text
            if !start.complete {
                if text.count > messageLimit + 2 {
                    whole = false
                } else if let data = redactedData(entry, bytes: .max) {
                    text = head + " " + data.text
                }
            }
        }
        return Line(kind: .logRow, at: entry.time, message: clipped(text, whole: whole), event: event,
                    logRowId: entry.rowId, level: entry.levelName, uuids: fields.uuids, status: fields.status)
    }

    /// `text` cut at `messageLimit` characters, with a note; `whole` false: a start of a longer
    /// text, cut whatever its length.
    private func clipped(_ text: String, whole: Bool = true) -> String {
        guard !whole || text.utf8.count > messageLimit else { return text }
        let kept = String(text.prefix(messageLimit))
        return kept + "… (cut at \(messageLimit) characters; `logs` shows the row whole)"
    }

    /// "Upload of 4 records: 401 → refresh failed (400), backoff 5 s" (the text view's words).
    private func attemptLine(_ attempt: UploadAttempt, event: String?, level: String?) -> Line {
        var text = "Upload of \(attempt.count) record\(attempt.count == 1 ? "" : "s"): "
        text += TimelineTextRenderer(colour: false).label(attempt)
        if let ms = attempt.ms { text += " after \(DurationFormat.short(ms / 1000))" }
        if let delay = attempt.backoffDelay { text += ", backoff \(DurationFormat.short(delay))" }
        if attempt.dropLogId != nil { text += ", records dropped" }
        if attempt.uuidCount > attempt.uuids.count { text += " (\(attempt.uuidCount) uuids, the first \(attempt.uuids.count) listed)" }
        if let response = attempt.response, !response.isEmpty { text += "; response: " + response }
        if let url = attempt.url { text += "; url: " + url }
        return Line(kind: .uploadAttempt, at: attempt.at, message: text, event: event, logRowId: attempt.logId,
                    level: level, uuids: TimesketchUUIDField(attempt.uuids), status: attempt.status)
    }

    /// The event a row is the record of, beside the row itself: every `auth.refresh.result` is one
    /// refresh, every `http.backoff` one backoff, every `queue.prune` one prune, every `queue.drop`
    /// one drop. Read from the rows, not from the timeline's attempts, which keep only the refresh
    /// and backoff that followed each kept attempt (bounded, without their own time), nor from its
    /// events, which collapse runs.
    private func recordedLine(_ entry: LogEntry, fields: TimesketchRowFields) -> Line? {
        func line(_ kind: Kind, _ message: String, uuids: TimesketchUUIDField = TimesketchUUIDField(), status: Int? = nil) -> Line {
            Line(kind: kind, at: entry.time, message: message, event: entry.event, logRowId: entry.rowId,
                 level: entry.levelName, uuids: uuids, status: status)
        }
        switch entry.event {
        case "auth.refresh.result":
            let success = fields.success
            let status = fields.status
            let outcome = success == true ? "succeeded" : success == false ? "failed" : "ended without saying whether it succeeded"
            return line(.tokenRefresh, "Token refresh " + outcome + (status.map { " (status \($0))" } ?? ""), status: status)
        case "http.backoff":
            let failures = fields.failures
            let delay = fields.delay
            var text = "Backoff"
            text += failures.map { " after \($0) consecutive failure\($0 == 1 ? "" : "s")" } ?? ""
            text += delay.map { ": next upload in \(DurationFormat.short($0))" } ?? ": delay not logged"
            if let next = fields.nextAttemptAt { text += " (at \(next))" }
            return line(.backoff, text)
        case "queue.prune":
            let count = fields.count
            let reason = fields.reason ?? "reason not logged"
            return line(.prune, "Queue pruned: " + (count.map { "\($0) record\($0 == 1 ? "" : "s")" } ?? "records") + " evicted (\(reason))")
        case "queue.drop":
            let uuids = fields.dropped
            let status = fields.status
            let count = max(uuids.count, fields.count ?? 0)
            return line(.drop, "Records dropped: \(count) record\(count == 1 ? "" : "s") deleted from the queue"
                            + (status.map { " after status \($0)" } ?? ""), uuids: uuids, status: status)
        default:
            return nil
        }
    }

    /// "Tracking gap of 32 min while moving: no fix until …; moved 12.3 km; context: …".
    private func gapLine(_ gap: TrackingGap) -> Line {
        var text = "Tracking gap of \(DurationFormat.short(gap.seconds)): no fix until \(Timestamp.format(gap.end)); "
        text += gap.expected ? "stationary (expected)" : gap.movingAtStart == true ? "the device was moving" : "motion unknown"
        if let distance = gap.distanceMeters, distance.isFinite {
            let apart = distance < 1000 ? "\(Int(distance.rounded())) m" : DecimalText.format(distance / 1000, places: 1) + " km"
            text += ", the fixes on either side \(apart) apart"
        }
        if !gap.contextEvents.isEmpty {
            text += "; context: " + gap.contextEvents.map { event in
                "\(event.kind.rawValue)\(event.detail.map { " (\($0))" } ?? "") \(event.position.rawValue) (row \(event.logId))"
            }.joined(separator: ", ")
        }
        return Line(kind: .gapStart, at: gap.start, message: text)
    }

    /// "[error] queue.stranded: … Who: … What to do: … Evidence: rows 12 15; uuids …", at the time
    /// the finding began: as the diagnosis states it, else the first row or record it cites, else
    /// the last log row read (said so in the message); nil when there is none of them.
    private func findingLine(_ finding: Finding) -> Line? {
        var at = dump.span(of: finding)?.first
        var placed = ""
        if at == nil, let last = timeline.lastAt {
            at = last
            placed = " (The finding states no time and cites no timed row: placed at the last log row read.)"
        }
        guard let at else { return nil }
        var text = "[\(finding.severity.name)] \(finding.code)" + (finding.rule.map { " [\($0)]" } ?? "") + ": " + finding.summary
        text += " Who: \(finding.responsible.words). What to do: \(finding.action)"
        let rows = finding.allLogIds
        if !rows.isEmpty {
            text += " Evidence: rows " + rows.prefix(20).map(String.init).joined(separator: " ") + (rows.count > 20 ? " …" : "") + "."
        }
        return Line(kind: .finding, at: at, message: text + placed, uuids: TimesketchUUIDField(finding.allUuids), finding: finding)
    }
}
