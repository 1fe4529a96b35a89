import BGeoReader
import Foundation

/// The recorded config and a what-if config replayed over the same stored trace, side by side:
/// both summaries and the count of changed fixes from one pass; the changed fixes themselves
/// (and every decision, when asked) from further passes as they are written.
public struct ReplayComparison: Sendable {
    public let recorded: ReplaySummary
    public let whatIf: ReplaySummary
    /// Fixes whose decision (or rejection reason) differs between the two runs.
    public let differenceCount: Int
    private let trace: CompleteTrace

    /// Replays `trace` under both configurations.
    public init(trace: CompleteTrace, recorded: ReplayConfiguration, whatIf: ReplayConfiguration, top: Int = 10) throws {
        let run = try StreamedReplay.summarize(trace, [recorded, whatIf], top: top)
        self.recorded = run.summaries[0]
        self.whatIf = run.summaries[1]
        differenceCount = run.differences
        self.trace = trace
    }

    /// Every fix the two runs decide differently, in trace order.
    public func forEachDifference(_ body: (Fix, FixDecision, FixDecision) throws -> Void) throws {
        try StreamedReplay.forEachDifference(trace, recorded: recorded.config, whatIf: whatIf.config, body)
    }

    static func differenceJSON(_ fix: Fix, _ a: FixDecision, _ b: FixDecision) -> JSONValue {
        ["index": .from(a.index), "uuid": fix.uuid.isEmpty ? .null : .string(fix.uuid),
         "source": .string(fix.source.rawValue), "timestamp": .string(fix.timestampText),
         "recorded": ["decision": .string(a.decision.rawValue), "reason": .from(a.reason?.rawValue)],
         "whatIf": ["decision": .string(b.decision.rawValue), "reason": .from(b.reason?.rawValue)]]
    }

    /// `extra` members, then `compare: {recorded, whatIf, odometerChange, differenceCount,
    /// differences[]}` (each run's summary, its decisions when asked), then `after` members; the
    /// long arrays are streamed. `extra` and `after` may hold placeholders for `arrays`
    /// (`StreamedJSONDocument.placeholder(n)` for `arrays[n]`).
    public func writeJSON(to output: TextOutput, extra: JSONObject, after: JSONObject, arrays given: [StreamedJSONDocument.Array] = [],
                          includeDecisions: Bool, top: Int, redactor: Redactor) throws {
        var arrays = given
        func run(_ summary: ReplaySummary) -> JSONValue {
            var object = summary.summaryObject(top: top)
            if includeDecisions {
                object["decisions"] = StreamedJSONDocument.placeholder(arrays.count)
                arrays.append(.init(.pretty(redactor)) { emit in
                    try StreamedReplay.forEachDecision(trace, config: summary.config) { fix, d in
                        emit(ReplaySummary.decisionJSON(fix, d))
                    }
                })
            }
            return .object(object)
        }
        let recordedJSON = run(recorded), whatIfJSON = run(whatIf)
        let differences = StreamedJSONDocument.placeholder(arrays.count)
        arrays.append(.init(.pretty(redactor)) { emit in
            try forEachDifference { fix, a, b in emit(ReplayComparison.differenceJSON(fix, a, b)) }
        })
        var object = extra
        object["compare"] = ["recorded": recordedJSON, "whatIf": whatIfJSON,
                             "odometerChange": .double(Round.metres(whatIf.odometerReplayed - recorded.odometerReplayed)),
                             "differenceCount": .from(differenceCount), "differences": differences]
        for member in after { object[member.key] = member.value }
        try StreamedJSONDocument.write(redactor.redact(.object(object)), arrays: arrays, to: output)
    }

    /// Counts side by side, then the fixes whose decision changes (at most `listLimit`), line by
    /// line through `redactor`. A long list is aligned in two passes: widths, then rows.
    public func writeText(title: String, top: Int = 10, listLimit: Int = 50, to output: TextOutput, redactor: Redactor) throws {
        func write(_ lines: [String]) { for line in lines { output.write(redactor.redact(text: line) + "\n") } }
        var out: [String] = ["Replay of \(title): recorded config vs what-if, \(recorded.fixCount) fixes", ""]
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
        out.append(contentsOf: ReplaySummary.align(table))
        out.append("")
        out.append("\(differenceCount) fix\(differenceCount == 1 ? "" : "es") change decision")
        write(out)
        if differenceCount > 0 {
            let header = ["#", "fix", "timestamp", "recorded", "what-if"]
            func rows(_ body: ([String]) -> Void) throws {
                var listed = 0
                try forEachDifference { fix, a, b in
                    guard listed < listLimit else { return }
                    listed += 1
                    body([String(a.index), TerminalText.field(fix.label), TerminalText.field(fix.timestampText), a.label, b.label])
                }
            }
            var widths = header.map(\.count)
            try rows { ReplaySummary.widen(&widths, for: $0) }
            write([ReplaySummary.alignedLine(header, widths: widths)])
            try rows { write([ReplaySummary.alignedLine($0, widths: widths)]) }
            if differenceCount > listLimit { write(["  … and \(differenceCount - listLimit) more (--json lists all)"]) }
        }
        var tail = [""]
        tail.append("Diagnosis (what-if)")
        for line in whatIf.diagnosis { tail.append("  - " + TerminalText.prose(line)) }
        write(tail)
    }
}
