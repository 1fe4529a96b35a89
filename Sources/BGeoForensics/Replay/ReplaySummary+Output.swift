import BGeoReader
import Foundation

extension ReplaySummary {
    /// The summary as JSON (deterministic: fixed key order, rounded numbers), without the decisions
    /// (they are streamed: `StreamedReplay.writeJSON`).
    public func json(top: Int = 10) -> JSONValue { .object(summaryObject(top: top)) }

    func summaryObject(top: Int) -> JSONObject {
        [
            "config": config.json,
            "configSource": .string(configSource),
            "configNotes": .array(configNotes.map { .string($0) }),
            "trace": traceStats?.json ?? .null,
            "fixes": .from(fixCount),
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
                                "examples": .array(engineDisagreementExamples.map { .string($0.words) })],
            "impossibleSteps": .from(impossibleStepCount),
            "recordedJumps": .array(recordedJumps.map { jump in
                ["uuid": .string(jump.label), "timestamp": .string(jump.timestampText),
                 "recorded": .double(Round.metres(jump.recorded)), "replayed": .double(Round.metres(jump.replayed))]
            }),
            "topContributors": .array(topContributors(limit: top).map(\.json)),
            "diagnosis": .array(diagnosis.map { .string($0) }),
        ]
    }

    /// One fix's decision as JSON (`index` is the fix's place in the trace).
    public static func decisionJSON(_ fix: Fix, _ d: FixDecision) -> JSONValue {
        [
            "index": .from(d.index),
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

    /// Columns of the per-fix listing (`--fixes`).
    public static let decisionColumns = ["#", "timestamp", "fix", "source", "decision", "latitude", "longitude",
                                         "added m", "odometer m", "speed m/s", "accuracy m"]

    /// Cells of one row of the per-fix listing.
    public static func decisionCells(_ fix: Fix, _ d: FixDecision) -> [String] {
        [String(d.index), fix.timestampText, fix.label, fix.source.rawValue, d.label,
         String(format: "%.6f", d.latitude), String(format: "%.6f", d.longitude),
         String(format: "%.1f", d.distanceAdded), String(format: "%.1f", d.odometer),
         (d.impliedSpeed ?? d.stepSpeed).map { String(format: "%.1f", $0) } ?? "",
         fix.accuracy.map { String(format: "%.0f", $0) } ?? "?"]
    }

    /// The readable summary: config, counts per decision and reason, odometers, top contributors, diagnosis.
    public func text(title: String, top: Int = 10) -> String {
        var out: [String] = []
        out.append("Replay of \(title): \(fixCount) fix\(fixCount == 1 ? "" : "es")")
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
            out.append(contentsOf: ReplaySummary.align(table))
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
        for r in rows { widen(&widths, for: r) }
        return rows.map { alignedLine($0, widths: widths) }
    }

    /// Grows `widths` to fit `row` (the first pass of an alignment too long to hold).
    static func widen(_ widths: inout [Int], for row: [String]) {
        for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
    }

    /// One row of an alignment with the given column widths.
    static func alignedLine(_ r: [String], widths: [Int]) -> String {
        var line = "  " + r.enumerated().map { i, cell in
            let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
            return Double(cell) != nil ? pad + cell : cell + pad
        }.joined(separator: "  ")
        while let last = line.last, last.isWhitespace { line.removeLast() }
        return line
    }
}
