import Foundation

/// The recorded config and a what-if config replayed over the same trace, side by side.
public struct ReplayComparison: Sendable {
    public let recorded: ReplayResult
    public let whatIf: ReplayResult
    /// Fix indexes whose decision (or rejection reason) differs between the two runs.
    public let differences: [Int]

    public init(recorded: ReplayResult, whatIf: ReplayResult) {
        self.recorded = recorded
        self.whatIf = whatIf
        var differences: [Int] = []
        for i in recorded.decisions.indices where i < whatIf.decisions.count {
            let a = recorded.decisions[i], b = whatIf.decisions[i]
            if a.decision != b.decision || a.reason != b.reason { differences.append(i) }
        }
        self.differences = differences
    }

    public func differenceJSON(_ i: Int) -> JSONValue {
        let fix = recorded.fixes[i], a = recorded.decisions[i], b = whatIf.decisions[i]
        return ["index": .from(i), "uuid": fix.uuid.isEmpty ? .null : .string(fix.uuid),
                "source": .string(fix.source.rawValue), "timestamp": .string(fix.timestampText),
                "recorded": ["decision": .string(a.decision.rawValue), "reason": .from(a.reason?.rawValue)],
                "whatIf": ["decision": .string(b.decision.rawValue), "reason": .from(b.reason?.rawValue)]]
    }

    /// `{recorded, whatIf, differences[]}` (each run's summary, decisions when asked).
    public func json(includeDecisions: Bool = false, top: Int = 10) -> JSONValue {
        ["recorded": recorded.json(includeDecisions: includeDecisions, top: top),
         "whatIf": whatIf.json(includeDecisions: includeDecisions, top: top),
         "odometerChange": .double(Round.metres(whatIf.odometerReplayed - recorded.odometerReplayed)),
         "differenceCount": .from(differences.count),
         "differences": .array(differences.map(differenceJSON))]
    }

    /// Counts side by side, then the fixes whose decision changes (at most `listLimit`).
    public func text(title: String, top: Int = 10, listLimit: Int = 50) -> String {
        var out: [String] = ["Replay of \(title): recorded config vs what-if, \(recorded.fixes.count) fixes", ""]
        out.append("  recorded: \(recorded.config.summary)")
        out.append("            from \(recorded.configSource)")
        out.append("  what-if:  \(whatIf.config.summary)")
        out.append("            from \(whatIf.configSource)")
        out.append("")
        var table = [["", "recorded", "what-if", "change"]]
        func add(_ name: String, _ a: Int, _ b: Int) { table.append([name, String(a), String(b), String(format: "%+d", b - a)]) }
        add("accepted", recorded.accepted, whatIf.accepted)
        add("adjusted", recorded.adjusted, whatIf.adjusted)
        add("rejected", recorded.rejected, whatIf.rejected)
        add("  accuracy", recorded.rejectedAccuracy, whatIf.rejectedAccuracy)
        add("  time", recorded.rejectedTime, whatIf.rejectedTime)
        add("  teleport", recorded.rejectedTeleport, whatIf.rejectedTeleport)
        table.append(["odometer m", String(format: "%.1f", recorded.odometerReplayed), String(format: "%.1f", whatIf.odometerReplayed),
                      String(format: "%+.1f", Say.shownDifference(whatIf.odometerReplayed, minus: recorded.odometerReplayed))])
        if let r = recorded.odometerRecorded { table.append(["recorded odometer m", String(format: "%.1f", r), String(format: "%.1f", r), ""]) }
        out.append(contentsOf: ReplayResult.align(table))
        out.append("")
        out.append("\(differences.count) fix\(differences.count == 1 ? "" : "es") change decision")
        if !differences.isEmpty {
            var rows = [["#", "fix", "timestamp", "recorded", "what-if"]]
            for i in differences.prefix(listLimit) {
                rows.append([String(i), TerminalText.field(recorded.fixes[i].label), TerminalText.field(recorded.fixes[i].timestampText),
                             recorded.decisions[i].label, whatIf.decisions[i].label])
            }
            out.append(contentsOf: ReplayResult.align(rows))
            if differences.count > listLimit { out.append("  … and \(differences.count - listLimit) more (--json lists all)") }
        }
        out.append("")
        out.append("Diagnosis (what-if)")
        for line in whatIf.diagnosis { out.append("  - " + TerminalText.prose(line)) }
        return out.joined(separator: "\n") + "\n"
    }
}
