import BGeoReader

/// `clock.stepped`: the device's clock was set back while the log was written, so log times
/// repeat and gaps or onsets near the step are measured on a clock that jumped.
struct ClockSteppedRule: FindingRule {
    let code = "clock.stepped"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        guard facts.clockSteps.count > 0, let step = facts.clockSteps.largest else { return [] }
        let n = facts.clockSteps.count
        var summary = "The device's clock stepped back \(n == 1 ? "once" : "\(n) times")"
        summary += n == 1 ? ", by \(DurationFormat.short(step.seconds))" : ", the largest by \(DurationFormat.short(step.seconds))"
        summary += " (row \(step.rowBefore) at \(facts.time(step.from)), row \(step.rowAfter) at \(facts.time(step.to))). "
        summary += "Times after a step repeat earlier ones: a gap, an onset or a backoff measured across it is off by the step."
        return [Finding(code: code, severity: .info, summary: summary,
                        evidence: [Evidence(note: "the rows either side of each step", logIds: facts.clockSteps.rows)],
                        responsible: .device,
                        action: "Read times near these rows with the step in mind (the user or the network set the clock); nothing to fix in the app or the server.")
            .spanning(step.to, step.from)]
    }
}
