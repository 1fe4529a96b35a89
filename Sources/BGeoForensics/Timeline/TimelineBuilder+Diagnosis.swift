import BGeoReader
import Foundation

extension TimelineBuilder {
    // MARK: gaps

    /// Every gap with its context: the diagnosis judges them all (a gap while moving must not
    /// hide behind the listing limit); only the listing is cut to `gapLimit`. Called once, after
    /// the read: it releases the coverage and the marks it reads.
    func buildGaps() -> [TrackingGap] {
        coverage.settle()
        let edges = coverage.gaps
        guard !edges.isEmpty else { return [] }
        // In time order, ties in row order. The marks come in row order, nearly always in time
        // order too: then they are the list, not a sorted copy beside them (two copies of 560,000
        // marks while every gap's context was built, stop 51).
        let inOrder = zip(marks, marks.dropFirst()).allSatisfy { $0.at <= $1.at }
        let sorted = inOrder ? marks : marks.sortedStably(byTime: \.at)
        let window = options.contextWindow
        // Where the motion marks are among the sorted marks, so each gap finds the newest one before
        // it by a binary search: walking back from the gap was quadratic when motion marks are few
        // (stop 48: 100,000 gaps between relaunches and no motion mark took timeline 5 s at 200,000
        // fixes, 7.6 times its time at a quarter of the gaps).
        let motionPositions = sorted.indices.filter { TimelineBuilder.isMotion(sorted[$0].kind) }
        var gaps: [TrackingGap] = []
        gaps.reserveCapacity(edges.count)
        for edge in edges {
            var before = edge.before
            var after = edge.after
            func complete(_ edge: CoverageMap.Edge) -> CoverageMap.Edge {
                guard edge.moving == nil || edge.latitude == nil else { return edge }
                // A log row stands for the edge when it has one (its line is the richer record).
                if let logRow = edge.logRow { return edge.completed(with: dump.motion(ofLogRow: logRow)) }
                return edge.completed(with: edge.queueRow.flatMap { dump.motion(ofQueueRow: $0) })
            }
            before = complete(before)
            after = complete(after)
            let start = before.time
            let end = after.time
            // The motion state at the gap's start: the last motion mark up to start + window.
            let newest = TimelineBuilder.lastPosition(in: motionPositions, before: firstIndex(sorted, atOrAfter: start + window))
            let motionState = newest.map { sorted[$0].kind }
            let from = firstIndex(sorted, atOrAfter: start - window)
            var to = from
            while to < sorted.count, sorted[to].at <= end + window { to += 1 }
            // Sized once: grown by appends, every gap's list held twice the room it needed
            // (stop 51: 33 MB at 80,000 gaps of seven events each).
            var context: [GapContextEvent] = []
            context.reserveCapacity(to - from)
            for mark in sorted[from..<to] {
                let position: GapContextEvent.Position = mark.at < start ? .before : (mark.at > end ? .after : .inside)
                context.append(GapContextEvent(kind: mark.kind, at: mark.at, logId: mark.logId,
                                               detail: mark.detail.map { redactor.redact(text: $0) }, position: position))
            }
            context = TimelineBuilder.boundContext(context)
            let distance = CoverageMap.distance(before, after)
            let stationary = before.moving == false || motionState == .stationary || motionState == .motionStationary
            // Stationary but resumed far away: the device moved while nothing was recorded.
            let stayed = distance.map { $0 < TimelineBuilder.movedDistance } ?? true
            gaps.append(TrackingGap(start: start, end: end, movingAtStart: before.moving, distanceMeters: distance,
                                    contextEvents: context, expected: stationary && stayed))
        }
        // Read once: the stretches and marks (a stretch per gap, and more) are not kept beside
        // the gaps while the diagnosis and the outputs are made.
        coverage = CoverageMap(threshold: options.gapThreshold)
        marksKept = marks.count
        marks = []
        return gaps
    }

    /// The marks that decide a gap's motion state (the newest of them before the gap's start plus
    /// the context window), however far before the gap they are. Asked per mark kept, so by a
    /// switch (a `Set` of a `String`-backed enum hashes the case's string).
    static func isMotion(_ kind: GapContextEvent.Kind) -> Bool {
        switch kind {
        case .stationary, .motionStationary, .motionMoving, .regionExit: true
        case .sessionStart, .relaunch, .headless, .heartbeat, .connectivity: false
        }
    }

    /// Fixes this far apart across a gap mean the device moved during it (GPS drift and a
    /// stationary geofence are a few hundred metres).
    static let movedDistance = 1000.0

    /// The last of `positions` (ascending) below `limit`, if any.
    static func lastPosition(in positions: [Int], before limit: Int) -> Int? {
        let after = positions.partitionPoint { $0 < limit }
        return after > 0 ? positions[after - 1] : nil
    }

    private func firstIndex(_ marks: [ContextMark], atOrAfter time: Double) -> Int {
        marks.partitionPoint { $0.at < time }
    }

    /// At most 20 context events: lifecycle and motion first, then the rest in time order.
    static func boundContext(_ events: [GapContextEvent]) -> [GapContextEvent] {
        guard events.count > 20 else { return events }
        let important: Set<GapContextEvent.Kind> = [.relaunch, .sessionStart, .stationary, .motionStationary,
                                                    .motionMoving, .regionExit]
        var keep = events.filter { important.contains($0.kind) }.prefix(20).map { $0 }
        for event in events where keep.count < 20 && !important.contains(event.kind) { keep.append(event) }
        return keep.sorted { $0.at < $1.at }
    }

    // MARK: findings

    /// The facts every finding rule reads, once the dump is read.
    func diagnosisFacts(gaps: [TrackingGap]) -> DiagnosisFacts {
        let state = dump.engineState()
        var facts = DiagnosisFacts(options: options, policy: policy, state: state, recordedConfig: recordedConfig,
                       configSource: configSource, refreshReadiness: refreshReadiness, stats: tracker.stats,
                       violations: tracker.violations, totalAttempts: tracker.totalAttempts, pendingRecords: pendingRecords,
                       oldestPending: oldestPending, newestPending: newestPending, pendingUuids: pendingUuids,
                       queueAttempts: queueAttempts, firstAt: firstAt, lastAt: lastAt, prunes: prunes, deferrals: deferrals,
                       connected: connected, gaps: gaps)
        facts.locationLines = locationLineCount
        facts.logUploadFailures = logUploadFailures
        facts.logUploadStatuses = logUploadStatuses
        facts.lastLogUploadSucceeded = lastLogUploadSucceeded
        facts.offline = offline
        facts.clockSteps = clockSteps
        let log = dump.logBounds()
        facts.history = HistoryCoverage(since: options.since, dumpLogStart: log.first, wholeHistory: facts.isWholeHistory,
                                        logStart: firstAt, oldestPending: oldestPending?.time, firstLogRowId: log.firstId,
                                        engineFailures: state.httpFailures, loggedFailures: tracker.stats.trailingFailures,
                                        time: facts.time)
        return facts
    }
}
