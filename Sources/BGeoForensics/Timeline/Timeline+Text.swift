import BGeoReader

/// The human view of a timeline (`timeline DUMP`): findings first, then the history with
/// repeated attempts collapsed ("401 → refresh failed (400) ×37, backoff 5 s → 300 s"), then
/// the gaps. ANSI colour only when `colour` is true (a terminal).
public struct TimelineTextRenderer: Sendable {
    public var colour: Bool
    public var width: Int
    /// List every tracking gap; by default expected (stationary) gaps share one line.
    public var allGaps: Bool

    public init(colour: Bool, width: Int = 110, allGaps: Bool = false) {
        self.colour = colour
        self.width = width
        self.allGaps = allGaps
    }

    enum Style: String {
        case red = "31", yellow = "33", green = "32", cyan = "36", dim = "2", bold = "1"
    }

    func paint(_ text: String, _ style: Style) -> String {
        let text = TimelineTextRenderer.clean(text)
        return colour ? "\u{1B}[\(style.rawValue)m" + text + "\u{1B}[0m" : text
    }

    /// Every line of the view.
    public func lines(_ timeline: Timeline, findingsOnly: Bool = false) -> [String] {
        var out: [String] = []
        out.append(paint("Timeline of \(timeline.dumpName)", .bold) + " — \(timeline.format.rawValue) dump, checked against the \(timeline.policy.rawValue) upload policy")
        var facts = "\(timeline.logRows) log rows"
        if let first = timeline.firstAt, let last = timeline.lastAt { facts += ", \(time(first)) → \(time(last))" }
        facts += " · \(timeline.pendingRecords) record\(timeline.pendingRecords == 1 ? "" : "s") pending"
        facts += " · " + timeline.tokenRefresh
        facts += " (\(timeline.configSource))"
        out.append(TimelineTextRenderer.clean(facts))
        if let sanitized = timeline.sanitized { out.append(TimelineTextRenderer.clean("Sanitised: " + sanitized)) }
        for input in timeline.inputs {
            out.append(TimelineTextRenderer.clean("input \(input.path) · \(input.bytes) bytes · sha256 \(input.sha256)"))
        }
        if timeline.since != nil || timeline.until != nil {
            var line = "Window: \(timeline.since.map(time) ?? "start") → \(timeline.until.map(time) ?? "end")"
            if let window = timeline.window {
                line += window.emptyNote.map { " — " + $0 } ?? " — \(window.logRowsInside) log rows, \(window.recordsInside) queued records inside"
            }
            out.append(line)
        }
        if let incomplete = timeline.history.sentence { out.append(TimelineTextRenderer.clean(incomplete)) }
        out.append("")
        out.append(contentsOf: findingLines(timeline.findings))
        guard !findingsOnly else { return out }
        out.append("")
        out.append(contentsOf: historyLines(timeline))
        out.append("")
        out.append(contentsOf: gapLines(timeline))
        return out
    }

    // MARK: findings

    func findingLines(_ findings: [Finding]) -> [String] {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        let infos = findings.count - errors - warnings
        var out = [paint("Findings", .bold) + " (\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), \(infos) info)"]
        if findings.isEmpty { out.append("  none: uploads, refreshes and tracking look as the policy expects.") }
        let codeWidth = min(22, (findings.map { $0.code.count }.max() ?? 0) + 1)
        for finding in findings {
            let label: String
            switch finding.severity {
            case .error: label = paint("ERROR  ", .red)
            case .warning: label = paint("WARNING", .yellow)
            case .info: label = paint("info   ", .cyan)
            }
            let code = finding.code + (finding.rule.map { " [\($0)]" } ?? "")
            let head = "  \(label) \(pad(code, codeWidth)) "
            let indent = String(repeating: " ", count: 2 + 7 + 1 + codeWidth + 1)
            let wrapped = wrap(finding.summary, width: max(40, width - indent.count))
            out.append(head + (wrapped.first ?? ""))
            for line in wrapped.dropFirst() { out.append(indent + line) }
            let blame = "Who: \(finding.responsible.words). What to do: \(finding.action)"
            for line in wrap(blame, width: max(40, width - indent.count)) { out.append(indent + paint(line, .bold)) }
            for evidence in finding.evidence.prefix(5) {
                var parts: [String] = []
                if let note = evidence.note { parts.append(note) }
                if !evidence.logIds.isEmpty {
                    parts.append("rows " + evidence.logIds.prefix(12).map { "#\($0)" }.joined(separator: " ")
                                 + more(evidence.logIds.count - 12 + evidence.omittedLogIds))
                }
                if !evidence.uuids.isEmpty {
                    parts.append("uuids " + evidence.uuids.prefix(4).joined(separator: " ")
                                 + more(evidence.uuids.count - 4 + evidence.omittedUuids))
                }
                guard !parts.isEmpty else { continue }
                out.append(indent + paint("· " + parts.joined(separator: ": "), .dim))
            }
            let hidden = max(0, finding.evidence.count - 5) + finding.omittedEvidence
            if hidden > 0 { out.append(indent + paint("· … \(hidden) more", .dim)) }
        }
        return out
    }

    private func more(_ n: Int) -> String { n > 0 ? " … (+\(n))" : "" }

    // MARK: history

    struct Row {
        var at: Double
        var ids: String
        var kind: String
        var text: String
        var style: Style?
    }

    func historyLines(_ timeline: Timeline) -> [String] {
        var rows: [Row] = []
        let attached = Set(timeline.attempts.compactMap { $0.refresh?.requestLogId })
        var group: [UploadAttempt] = []
        // Routine events met inside a run of attempts are listed after the run, so a heartbeat
        // does not cut "200 ok ×31" into pieces.
        var deferred: [TimelineEvent] = []
        func flush() {
            if let first = group.first, let last = group.last {
                rows.append(attemptRow(group, first: first, last: last))
            }
            group = []
            rows.append(contentsOf: TimelineTextRenderer.merged(deferred).map(eventRow))
            deferred = []
        }
        var e = 0
        var a = 0
        let events = timeline.events
        let attempts = timeline.attempts
        while e < events.count || a < attempts.count {
            let takeAttempt = a < attempts.count && (e >= events.count || attempts[a].logId < events[e].logId)
            if takeAttempt {
                let attempt = attempts[a]
                a += 1
                if let last = group.last, label(last, withRefreshStatus: false) != label(attempt, withRefreshStatus: false) {
                    flush()
                }
                group.append(attempt)
            } else {
                let event = events[e]
                e += 1
                // A refresh made for an attempt is shown on that attempt's line.
                if event.kind == .refresh, attached.contains(event.logId) { continue }
                if !group.isEmpty, EventCollector.isRoutine(event.kind) {
                    deferred.append(event)
                    continue
                }
                flush()
                rows.append(eventRow(event))
            }
        }
        flush()
        var out = [paint("History", .bold) + " (\(rows.count) line\(rows.count == 1 ? "" : "s"), repeats collapsed)"]
        if rows.isEmpty { out.append("  no engine events or uploads in the log.") }
        let idWidth = min(24, rows.map { $0.ids.count }.max() ?? 0)
        let kindWidth = min(14, rows.map { $0.kind.count }.max() ?? 0)
        let indent = String(repeating: " ", count: 2 + 20 + 2 + idWidth + 2 + kindWidth + 2)
        for row in rows {
            let wrapped = wrap(row.text, width: max(40, width - indent.count))
            let text = wrapped.first ?? ""
            out.append("  \(time(row.at))  " + paint(pad(row.ids, idWidth), .dim) + "  \(pad(row.kind, kindWidth))  "
                       + (row.style.map { paint(text, $0) } ?? text))
            for line in wrapped.dropFirst() { out.append(indent + line) }
        }
        if timeline.omittedEvents > 0 || timeline.omittedAttempts > 0 {
            out.append(paint("  … \(timeline.omittedEvents) events and \(timeline.omittedAttempts) attempts not listed (bounded view; counts are in --json)", .dim))
        }
        return out
    }

    /// Routine events met during one run of attempts, identical ones (same collapse key) merged
    /// into one line with their count, in order of first appearance: 25 heartbeats between the
    /// retries of one stuck run are one "heartbeat ×25" line.
    static func merged(_ events: [TimelineEvent]) -> [TimelineEvent] {
        var out: [TimelineEvent] = []
        var index: [String: Int] = [:]
        for event in events {
            if let i = index[event.collapseKey] {
                out[i].count += event.count
                out[i].lastAt = event.lastAt
                out[i].lastLogId = event.lastLogId
            } else {
                index[event.collapseKey] = out.count
                out.append(event)
            }
        }
        return out
    }

    /// "401 → refresh failed (400)"; without the refresh status when grouping, so a run whose
    /// refreshes fail with 400 and 401 alternately stays one line.
    func label(_ attempt: UploadAttempt, withRefreshStatus: Bool = true) -> String {
        guard let status = attempt.status else { return "no response logged" }
        var text: String
        switch attempt.outcome {
        case .success?: text = "\(status) ok"
        case .drop?: text = "\(status) → poison"
        case .refresh?:
            if let refresh = attempt.refresh {
                switch refresh.success {
                case true?: text = "\(status) → refreshed"
                case false?: text = "\(status) → refresh failed" + (withRefreshStatus ? refresh.status.map { " (\($0))" } ?? "" : "")
                case nil: text = "\(status) → refresh (no result logged)"
                }
            } else {
                text = "\(status) → " + (attempt.afterRefresh ? "retry" : "no refresh")
            }
        case .halveBatch?: text = "\(status) → halve batch"
        case .countAttempt?: text = "\(status) → attempt counted"
        default: text = status == 0 ? "network error → retry" : "\(status) → retry"
        }
        if attempt.afterRefresh { text = "retry after refresh: " + text }
        return text
    }

    func attemptRow(_ group: [UploadAttempt], first: UploadAttempt, last: UploadAttempt) -> Row {
        var text = label(first)
        let refreshStatuses = Dictionary(grouping: group.compactMap { $0.refresh?.success == false ? $0.refresh?.status : nil }, by: { $0 })
        if refreshStatuses.count > 1 {
            // Mixed refresh failures: "refresh failed (400 ×35, 401 ×71)".
            let mixed = refreshStatuses.sorted { ($0.value.count, -$0.key) > ($1.value.count, -$1.key) }
                .map { "\($0.key) ×\($0.value.count)" }.joined(separator: ", ")
            text = label(first, withRefreshStatus: false) + " (\(mixed))"
        }
        if group.count > 1 { text += " ×\(group.count)" }
        let delays = group.compactMap(\.backoffDelay)
        if let low = delays.first, let high = delays.last {
            text += ", backoff " + DurationFormat.short(low) + (group.count > 1 && high != low ? " → " + DurationFormat.short(high) : "")
        }
        let counts = group.map(\.count)
        let minCount = counts.min() ?? 0
        let maxCount = counts.max() ?? 0
        text += minCount == maxCount ? ", \(minCount) record\(minCount == 1 ? "" : "s")" : ", \(minCount)–\(maxCount) records"
        if group.count == 1, let uuid = first.uuids.first, first.uuidCount == 1 { text += " (\(uuid))" }
        if group.count > 1 { text += " until \(time(last.at))" }
        if last.dropLogId != nil, group.count == 1 { text += ", dropped" }
        let style: Style = first.outcome == .success ? .green : .red
        let ids = group.count > 1 ? "#\(first.logId)–#\(last.logId)" : "#\(first.logId)"
        return Row(at: first.at, ids: ids, kind: "upload", text: text, style: style)
    }

    func eventRow(_ event: TimelineEvent) -> Row {
        var text = event.summary
        if event.count > 1 { text += " ×\(event.count) until \(time(event.lastAt))" }
        let ids = event.count > 1 ? "#\(event.logId)–#\(event.lastLogId)" : "#\(event.logId)"
        var style: Style?
        switch event.kind {
        case .relaunch, .poisonDrop, .prune: style = .yellow
        case .refresh: style = event.summary.contains("failed") ? .red : nil
        default: style = nil
        }
        return Row(at: event.at, ids: ids, kind: event.kind.rawValue, text: text, style: style)
    }

    // MARK: gaps

    func gapLines(_ timeline: Timeline) -> [String] {
        var out = [paint("Tracking gaps", .bold) + " (no fix for ≥ \(DurationFormat.short(timeline.gapThreshold)))"]
        if timeline.gaps.isEmpty { out.append("  none.") }
        let expected = timeline.gaps.filter(\.expected)
        // Expected gaps (the engine stops GPS while stationary) are one line unless asked for.
        let collapse = !allGaps && expected.count > 1
        var summarised = false
        for gap in timeline.gaps {
            if collapse, gap.expected {
                if !summarised { out.append(expectedGapsLine(expected)) }
                summarised = true
                continue
            }
            var state = gap.expected ? "stationary (expected)" : (gap.movingAtStart == true ? "while moving" : "motion unknown")
            if let distance = gap.distanceMeters, distance >= 1000 {
                state += String(format: ", moved %.1f km", distance / 1000)
            }
            out.append("  \(time(gap.start)) → \(time(gap.end))  " + pad(DurationFormat.short(gap.seconds), 10) + "  "
                       + (gap.expected ? state : paint(state, .yellow)))
            for event in gap.contextEvents {
                out.append(paint("      \(pad(event.position.rawValue, 6)) \(time(event.at))  #\(event.logId)  \(event.kind.rawValue)"
                                 + (event.detail.map { " (\($0))" } ?? ""), .dim))
            }
        }
        if timeline.omittedGaps > 0 { out.append("  … \(timeline.omittedGaps) more gaps not listed") }
        return out
    }

    /// "2026-07-24T06:00:49Z → 2026-07-24T17:14:47Z  38 gaps  stationary (expected): 9 h 30 min in all, …".
    func expectedGapsLine(_ gaps: [TrackingGap]) -> String {
        let total = gaps.map(\.seconds).reduce(0, +)
        let longest = gaps.map(\.seconds).max() ?? 0
        let relaunched = gaps.filter { $0.contextEvents.contains { $0.kind == .relaunch && $0.position == .inside } }.count
        var text = "  \(time(gaps[0].start)) → \(time(gaps[gaps.count - 1].end))  " + pad("\(gaps.count) gaps", 10)
        text += "  stationary (expected): \(DurationFormat.short(total)) in all, the longest \(DurationFormat.short(longest))"
        if relaunched > 0 { text += ", \(relaunched) with an app relaunch inside" }
        return text + paint(" — --all-gaps lists each with its context", .dim)
    }

    // MARK: helpers

    func time(_ t: Double) -> String { Timestamp.format(t, milliseconds: false) }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Dump text is customer data: control characters (an ANSI escape in an app log line could
    /// recolour or rewrite the terminal) and bidi controls are shown as `\u{…}` instead of being
    /// sent, and a run of hundreds of characters without a space is shortened (see `TerminalText.prose`).
    static func clean(_ text: String) -> String {
        TerminalText.prose(text)
    }

    /// Word-wraps `text` to `width` columns (long words are kept whole).
    func wrap(_ text: String, width: Int) -> [String] {
        let text = TimelineTextRenderer.clean(text)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count > width {
                lines.append(line)
                line = String(word)
            } else {
                line += " " + word
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
