import BGeoReader
import Foundation

extension ReplaySummary {
    /// Recorded and replayed odometers further apart than this (percent) are called out.
    public static let odometerTolerancePercent = 5.0

    /// Plain-language findings, most important first: odometer disagreement and the fixes
    /// responsible, steps at impossible speeds, what the filter dropped, where replay and the
    /// engine disagree. Always at least one line.
    public var diagnosis: [String] {
        var lines: [String] = []
        let limit = config.locationFilterMaxSpeed

        // 1. Recorded vs replayed odometer.
        if let recorded = odometerRecorded, let range = recordedOdometerRange {
            if recorded < 0 {
                lines.append("The recorded odometer went down (from \(Say.distance(range.first)) to \(Say.distance(range.last))): "
                    + "it was reset during the trace, so its span is not a distance to compare with the replayed \(Say.distance(odometerReplayed)).")
            } else if recorded == 0 {
                if odometerReplayed > 0 {
                    lines.append("The recorded odometer did not move (0 m) while replay counts \(Say.distance(odometerReplayed)).")
                }
            } else if let percent = odometerDifferencePercent, let difference = odometerDifference {
                if abs(percent) > ReplaySummary.odometerTolerancePercent {
                    let direction = difference > 0 ? "more" : "less"
                    lines.append("Replay counts \(Say.distance(odometerReplayed)), \(Say.percent(abs(percent))) \(direction) than the "
                        + "recorded \(Say.distance(recorded)) (beyond the \(Say.number(ReplaySummary.odometerTolerancePercent)) % tolerance).")
                    if difference > 0 {
                        let top = topContributors(limit: 3)
                        if !top.isEmpty {
                            lines.append("Largest steps: " + top.map(Say.step).joined(separator: "; ") + ".")
                        }
                    } else {
                        if !recordedJumps.isEmpty {
                            lines.append("Where the SDK's odometer advanced more than replay: " + recordedJumps.map { jump in
                                "\(jump.label) at \(jump.timestampText): recorded +\(Say.distance(jump.recorded)), "
                                    + "replayed +\(Say.distance(jump.replayed))"
                            }.joined(separator: "; ") + " (fixes missing from the dump, or counted by a different filter config).")
                        }
                        if engineDisagreements > 0 {
                            lines.append("Replay drops fixes the engine counted: "
                                + engineDisagreementExamples.prefix(3).map(\.words).joined(separator: "; ") + ".")
                        }
                    }
                } else {
                    lines.append("Replayed odometer \(Say.distance(odometerReplayed)) agrees with the recorded \(Say.distance(recorded)) "
                        + "within \(Say.number(ReplaySummary.odometerTolerancePercent)) % (\(Say.signedPercent(percent))).")
                }
            }
        } else {
            lines.append("The dump records no odometer values, so the replayed \(Say.distance(odometerReplayed)) cannot be checked against the SDK's own.")
        }

        // 2. Steps at impossible speeds.
        if impossibleStepCount > 0 {
            let why = config.disableLocationFilter ? " (the filter is disabled, so nothing stops them)"
                : (config.policy == .passThrough ? " (PassThrough skips the teleport check; Conservative would drop such fixes)" : "")
            lines.append("\(Say.count(impossibleStepCount, "odometer step", "odometer steps")) \(impossibleStepCount == 1 ? "implies" : "imply") more than "
                + "\(Say.number(limit)) m/s (\(Say.number((limit * 3.6).rounded())) km/h)\(why): "
                + impossibleSteps.prefix(3).map(Say.step).joined(separator: "; ") + ".")
        }
        if zeroTimeSteps > 0 {
            lines.append("\(Say.count(zeroTimeSteps, "step", "steps")) \(zeroTimeSteps == 1 ? "adds" : "add") distance with no time elapsed since the previous counting fix "
                + "(duplicate or backwards timestamps).")
        }

        // 3. What the filter dropped.
        if rejectedTeleport > 0 {
            let examples = fastestTeleports.map { "\($0.label) at \($0.timestampText) (\(Say.speed($0.speed)))" }
            lines.append("\(Say.count(rejectedTeleport, "fix", "fixes")) rejected as \(rejectedTeleport == 1 ? "a teleport" : "teleports") "
                + "(faster than \(Say.number(limit)) m/s from the previous accepted fix), adding no distance. "
                + "Fastest: " + examples.joined(separator: "; ") + ".")
        }
        if rejectedAccuracy > 0 {
            var text = "\(Say.count(rejectedAccuracy, "fix", "fixes")) rejected for accuracy worse than "
                + "\(Say.number(config.locationFilterMaxAccuracy)) m"
            if rejectedUnknownAccuracy > 0 { text += " (\(rejectedUnknownAccuracy) with no accuracy at all)" }
            lines.append(text + ".")
        }
        if rejectedTime > 0 {
            lines.append("\(Say.count(rejectedTime, "fix", "fixes")) rejected because the clock did not advance past the previous accepted fix.")
        }

        // 4. Replay vs the engine's own record.
        if engineDisagreements > 0 {
            lines.append("Replay decides \(engineDisagreements) of \(fixCount) fixes differently from the engine's own record, e.g. "
                + engineDisagreementExamples.prefix(3).map(\.words).joined(separator: "; ")
                + (isWhatIf ? " (expected: this is a what-if config)."
                    : ". Under the recorded config this usually means the filter settings changed during the trace "
                    + "(locationFilterPolicy and kalmanProfile only apply when tracking restarts) or the log is incomplete."))
        }
        if let stats = traceStats, stats.smoothedOnly > 0, !config.disableLocationFilter, config.policy != .passThrough {
            lines.append("\(stats.smoothedOnly) fix\(stats.smoothedOnly == 1 ? " is" : "es are") known only by the engine's smoothed position "
                + "(no raw_* log line); replay smooths them again, which shortens the distance slightly.")
        }
        if lines.isEmpty { lines.append("Nothing stands out: no impossible steps, no rejections.") }
        return lines
    }
}

/// Numbers in words for humans.
enum Say {
    static func distance(_ metres: Double) -> String {
        abs(metres) >= 1000 ? String(format: "%.2f km", metres / 1000) : String(format: "%.1f m", metres)
    }

    static func speed(_ v: Double) -> String { String(format: "%.1f m/s", v) }
    static func percent(_ p: Double) -> String { String(format: "%.1f %%", p) }
    /// "+12.3 %", "-90.9 %"; a difference that rounds to zero is "0.0 %" (exactly none) or
    /// "less than 0.1 %", never "-0.0 %".
    static func signedPercent(_ p: Double) -> String {
        guard (p * 10).rounded() != 0 else { return p == 0 ? "0.0 %" : "less than 0.1 %" }
        return String(format: "%+.1f %%", p)
    }

    /// The difference between two metre values as shown to one decimal, computed from the shown
    /// values, so a reader's own subtraction of the printed numbers always agrees ("+0.0" never
    /// prints as "-0.0"): `-1965937.0` for 195991.9 − 2161928.9 wherever it appears.
    static func shownDifference(_ to: Double, minus from: Double) -> Double {
        let difference = ((to * 10).rounded() - (from * 10).rounded()) / 10
        return difference == 0 ? 0 : difference
    }
    static func number(_ value: Double) -> String { FilterConfig.trim(value) }
    static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    static func step(_ c: Contributor) -> String {
        var text = "\(c.label) at \(c.timestampText) added \(distance(c.distanceAdded))"
        if let v = c.impliedSpeed { text += " at \(speed(v))" }
        text += c.accuracy.map { String(format: ", accuracy %.0f m", $0) } ?? ", accuracy unknown"
        return text
    }
}
