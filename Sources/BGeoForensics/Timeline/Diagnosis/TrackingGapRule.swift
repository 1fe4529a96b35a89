import BGeoReader

/// `tracking.gap`: Gaps in the trace: while moving one by one, stationary ones summed up.
struct TrackingGapRule: FindingRule {
    let code = "tracking.gap"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        // Gaps are read where they stand and summed as they are met: a dump may hold 400,000
        // (three filtered copies of them were the report's largest lists, stop 52).
        var found: [Finding] = []
        var rest = GapSum()
        var listed = 0
        for gap in facts.gaps where !gap.expected {
            if listed < 10 {
                found.append(finding(gap, facts))
                listed += 1
            } else {
                rest.add(gap, logIds: gap.contextEvents.map(\.logId))
            }
        }
        if rest.count > 0 {
            found.append(Finding(code: "tracking.gap", severity: .warning,
                                    summary: "\(rest.count) more tracking gaps while moving, the longest \(DurationFormat.short(rest.longest)); see the gaps list.",
                                    evidence: [Evidence(note: "first context rows", logIds: rest.logIds)],
                                    responsible: .unknown,
                                    action: "Read each gap's context in the gaps list (relaunches, motion changes) and check location permission and battery optimisation on the device.").spanning(rest.first, rest.last))
        }
        // A stationary gap during which the process was killed and relaunched is still worth
        // its own line: the relaunch is what support will be asked about.
        var relaunchedListed = 0
        var expected = GapSum()
        var firstExpected: TrackingGap?
        for gap in facts.gaps where gap.expected {
            if relaunchedListed < 10, gap.contextEvents.contains(where: { $0.kind == .relaunch && $0.position == .inside }) {
                found.append(finding(gap, facts))
                relaunchedListed += 1
                continue
            }
            if firstExpected == nil { firstExpected = gap }
            expected.add(gap, logIds: gap.contextEvents.filter { [.stationary, .motionStationary, .regionExit].contains($0.kind) }.map(\.logId))
        }
        if expected.count == 1, let gap = firstExpected {
            found.append(finding(gap, facts))
        } else if expected.count > 1, let first = firstExpected {
            found.append(Finding(code: "tracking.gap", severity: .info,
                                    summary: "\(expected.count) gaps while the device was stationary (\(DurationFormat.short(expected.total)) in all, the longest \(DurationFormat.short(expected.longest))): expected, the engine stops GPS until the stationary geofence is exited. First: \(facts.time(first.start)) → \(facts.time(first.end)).",
                                    evidence: [Evidence(note: "stationary and region-exit rows", logIds: expected.logIds)],
                                    responsible: .expected, action: "Nothing: this is how the engine saves battery while the device stands still.").spanning(expected.first, expected.last))
        }
        return found
    }

    /// Gaps summed up in one finding: how many, how long, their span and the rows they cite.
    private struct GapSum {
        var count = 0
        var longest = 0.0
        var total = 0.0
        var first: Double?
        var last: Double?
        var logIds: [Int64] = []

        mutating func add(_ gap: TrackingGap, logIds ids: [Int64]) {
            count += 1
            longest = max(longest, gap.seconds)
            total += gap.seconds
            first = min(first ?? gap.start, gap.start)
            last = max(last ?? gap.end, gap.end)
            logIds += ids
        }
    }

    private func finding(_ gap: TrackingGap, _ facts: DiagnosisFacts) -> Finding {
        var summary = "No fixes for \(DurationFormat.short(gap.seconds)) (\(facts.time(gap.start)) → \(facts.time(gap.end)))"
        let moved = gap.distanceMeters.map { $0 >= TimelineBuilder.movedDistance } ?? false
        if gap.expected {
            summary += " while the device was stationary: expected, the engine stops GPS until the stationary geofence is exited."
        } else if moved, let distance = gap.distanceMeters {
            summary += ": the device moved \(DiagnosisFacts.distanceText(distance)) meanwhile (the next fix is that far from the last one)"
            summary += gap.movingAtStart == true ? ", and it was moving when the fixes stopped." : ", but nothing was recorded on the way."
        } else {
            summary += gap.movingAtStart == true ? " although the device was moving." : "."
        }
        let relaunch = gap.contextEvents.first { $0.kind == .relaunch && $0.position != .before }
        if let relaunch {
            let how = relaunch.detail.map { " (reason: \($0))" } ?? ""
            summary += gap.expected
                ? " Meanwhile the app process was killed; the engine relaunched at \(facts.time(relaunch.at))\(how) (row \(relaunch.logId)) and tracking resumed as designed."
                : " The app process was killed and relaunched at \(facts.time(relaunch.at))\(how) (row \(relaunch.logId)): tracking was down until then."
        }
        let described = gap.contextEvents.prefix(6).map { event in
            "\(event.kind.rawValue)\(event.detail.map { " (\($0))" } ?? "") at \(facts.time(event.at)) [\(event.position.rawValue)]"
        }
        if !described.isEmpty { summary += " Around it: " + described.joined(separator: "; ") + "." }
        else if !gap.expected { summary += " The log shows no engine event around it (no relaunch, motion change or region exit)." }
        let responsible: Responsibility
        let action: String
        if gap.expected {
            responsible = .expected
            action = relaunch == nil ? "Nothing: this is how the engine saves battery while the device stands still."
                : "Nothing to fix in the engine; if relaunches are frequent, check the OS's battery optimisation for the app."
        } else if relaunch != nil {
            responsible = .device
            action = "The OS killed the app: ask the user to exclude it from battery optimisation and keep location access set to Always."
        } else {
            responsible = .unknown
            action = "Check location permission, battery optimisation and the app's own stop()/start() calls around this time (app log lines)."
        }
        return Finding(code: "tracking.gap", severity: gap.expected ? .info : .warning, summary: summary,
                       evidence: [Evidence(note: "context events", logIds: gap.contextEvents.map(\.logId))],
                       responsible: responsible, action: action).spanning(gap.start, gap.end)
    }
}
