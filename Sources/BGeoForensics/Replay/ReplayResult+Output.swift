import Foundation

extension ReplayResult {
    /// The summary as JSON (deterministic: fixed key order, rounded numbers), with every fix's
    /// decision when `includeDecisions`.
    public func json(includeDecisions: Bool = false, top: Int = 10) -> JSONValue {
        var object = summaryObject(top: top)
        if includeDecisions { object["decisions"] = .array(decisions.indices.map(decisionJSON)) }
        return .object(object)
    }

    func summaryObject(top: Int) -> JSONObject {
        [
            "config": config.json,
            "configSource": .string(configSource),
            "configNotes": .array(configNotes.map { .string($0) }),
            "trace": traceStats?.json ?? .null,
            "fixes": .from(fixes.count),
            "accepted": .from(accepted),
            "adjusted": .from(adjusted),
            "rejected": ["total": .from(rejected), "accuracy": .from(rejectedAccuracy), "time": .from(rejectedTime),
                         "teleport": .from(rejectedTeleport)],
            "odometer": [
                "replayed": .double(Round.metres(odometerReplayed)),
                "recorded": .from(odometerRecorded.map(Round.metres)),
                "difference": .from(odometerDifference.map(Round.metres)),
                "differencePercent": .from(odometerDifferencePercent.map(Round.percent)),
                "recordedFirst": .from(recordedOdometerRange.map { Round.metres($0.first) }),
                "recordedLast": .from(recordedOdometerRange.map { Round.metres($0.last) }),
            ],
            "engineAgreement": ["differs": .from(engineDisagreements),
                                "examples": .array(engineDisagreementExamples.map { .string(describeDisagreement($0)) })],
            "impossibleSteps": .from(impossibleStepCount),
            "recordedJumps": .array(recordedJumps.map { jump in
                ["uuid": .string(fixes[jump.index].label), "timestamp": .string(fixes[jump.index].timestampText),
                 "recorded": .double(Round.metres(jump.recorded)), "replayed": .double(Round.metres(jump.replayed))]
            }),
            "topContributors": .array(topContributors(limit: top).map(\.json)),
            "diagnosis": .array(diagnosis.map { .string($0) }),
        ]
    }

    /// One fix's decision as JSON.
    public func decisionJSON(_ i: Int) -> JSONValue {
        let d = decisions[i], fix = fixes[i]
        return [
            "index": .from(i),
            "uuid": fix.uuid.isEmpty ? .null : .string(fix.uuid),
            "source": .string(fix.source.rawValue),
            "rowId": fix.rowId.map { .int($0) } ?? .null,
            "logId": fix.logId.map { .int($0) } ?? .null,
            "timestamp": .string(fix.timestampText),
            "decision": .string(d.decision.rawValue),
            "reason": .from(d.reason?.rawValue),
            "latitude": .double(Round.degrees(d.latitude)),
            "longitude": .double(Round.degrees(d.longitude)),
            "odometer": .double(Round.metres(d.odometer)),
            "distanceAdded": .double(Round.metres(d.distanceAdded)),
            "impliedSpeed": .from(d.impliedSpeed.map(Round.metres)),
        ]
    }

    /// Writes the JSON document to `output`, streaming the decisions one per line so a
    /// million-fix listing never exists as one tree. `extra` members (dump, warnings) come first.
    /// Dump text (uuids, timestamps, notes) goes through `redactor`.
    public func writeJSON(to output: TextOutput, extra: JSONObject = JSONObject(), includeDecisions: Bool, top: Int = 10,
                          redactor: Redactor = .disabled) {
        var object = extra
        for member in summaryObject(top: top) { object[member.key] = member.value }
        var text = JSONWriter(pretty: true).string(redactor.redact(.object(object)))
        guard includeDecisions else {
            output.jsonLine(text)
            return
        }
        text.removeLast(2)  // the closing "\n}"
        output.writeJSON(text)
        output.writeJSON(",\n  \"decisions\": [")
        let compact = JSONWriter()
        for i in decisions.indices {
            output.writeJSON(i == 0 ? "\n    " : ",\n    ")
            output.writeJSON(redactor.redact(text: compact.string(decisionJSON(i))))
        }
        output.jsonLine(decisions.isEmpty ? "]\n}" : "\n  ]\n}")
    }

    /// Columns of the per-fix listing (`--fixes`).
    public static let decisionColumns = ["#", "timestamp", "fix", "source", "decision", "latitude", "longitude",
                                         "added m", "odometer m", "speed m/s", "accuracy m"]

    /// Cells of one row of the per-fix listing.
    public func decisionCells(_ i: Int) -> [String] {
        let d = decisions[i], fix = fixes[i]
        return [String(i), fix.timestampText, fix.label, fix.source.rawValue, d.label,
                String(format: "%.6f", d.latitude), String(format: "%.6f", d.longitude),
                String(format: "%.1f", d.distanceAdded), String(format: "%.1f", d.odometer),
                (d.impliedSpeed ?? d.stepSpeed).map { String(format: "%.1f", $0) } ?? "",
                fix.accuracy.map { String(format: "%.0f", $0) } ?? "?"]
    }

    /// The readable summary: config, counts per decision and reason, odometers, top contributors, diagnosis.
    public func text(title: String, top: Int = 10) -> String {
        var out: [String] = []
        out.append("Replay of \(title): \(fixes.count) fix\(fixes.count == 1 ? "" : "es")")
        out.append("Config:  \(config.summary)")
        out.append("         from \(configSource)")
        for note in configNotes { out.append("         note: \(note)") }
        if let s = traceStats {
            out.append("Trace:   \(s.queueLocations) queue locations, \(s.logLocations) location lines "
                + "(\(s.duplicates) duplicate uuid\(s.duplicates == 1 ? "" : "s") merged), \(s.logRejects) filter.reject, "
                + "\(s.logAdjusts) filter.adjust (\(s.adjustsMerged) merged into their accepted fix)")
            out.append("         \(s.rawPositions) raw positions, \(s.smoothedOnly) smoothed-only"
                + (s.skippedLines > 0 ? ", \(s.skippedLines) unreadable lines skipped" : ""))
        }
        out.append("")
        out.append("Decisions")
        out.append(row("accepted", accepted))
        out.append(row("adjusted", adjusted))
        out.append(row("rejected", rejected))
        out.append(row("  accuracy", rejectedAccuracy))
        out.append(row("  time", rejectedTime))
        out.append(row("  teleport", rejectedTeleport))
        out.append("")
        out.append("Odometer")
        out.append("  replayed    " + String(format: "%14.1f m", odometerReplayed))
        if let recorded = odometerRecorded {
            out.append("  recorded    " + String(format: "%14.1f m", recorded))
            var line = "  difference  " + String(format: "%+14.1f m", Say.shownDifference(odometerReplayed, minus: recorded))
            if let p = odometerDifferencePercent { line += " (" + Say.signedPercent(p) + ")" }
            out.append(line)
        } else {
            out.append("  recorded    (none in the dump)")
        }
        let contributors = topContributors(limit: top)
        if !contributors.isEmpty {
            out.append("")
            out.append("Top contributors")
            var table = [["#", "fix", "timestamp", "added m", "speed m/s", "accuracy m"]]
            for c in contributors {
                table.append([String(c.index), TerminalText.field(c.label), TerminalText.field(c.timestampText), String(format: "%.1f", c.distanceAdded),
                              c.impliedSpeed.map { String(format: "%.1f", $0) } ?? "-",
                              c.accuracy.map { String(format: "%.0f", $0) } ?? "?"])
            }
            out.append(contentsOf: ReplayResult.align(table))
        }
        out.append("")
        out.append("Diagnosis")
        for line in diagnosis { out.append("  - " + TerminalText.prose(line)) }
        return out.joined(separator: "\n") + "\n"
    }

    private func row(_ name: String, _ count: Int) -> String {
        "  " + name + String(repeating: " ", count: max(1, 12 - name.count)) + String(format: "%10d", count)
    }

    /// Left-aligned text columns, numbers right-aligned (a cell that parses as a number).
    /// Trailing padding is cut by hand: a `\\s+$` regex here took time quadratic in the padding,
    /// minutes for a 70,000-character uuid (cells are shortened by the caller now as well).
    static func align(_ rows: [[String]]) -> [String] {
        guard let first = rows.first else { return [] }
        var widths = Array(repeating: 0, count: first.count)
        for r in rows { for (i, cell) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return rows.map { r in
            var line = "  " + r.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
                return Double(cell) != nil ? pad + cell : cell + pad
            }.joined(separator: "  ")
            while let last = line.last, last.isWhitespace { line.removeLast() }
            return line
        }
    }
}
