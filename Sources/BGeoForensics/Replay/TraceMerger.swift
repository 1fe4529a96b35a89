import Foundation

extension TraceBuilder {
    /// The queue's part of a trace: its location records as fixes (drain order), indexed by uuid,
    /// and its geofences.
    struct QueuePart {
        var fixes: [Fix] = []
        var geofences: [QueueRecord] = []
        var byUUID: [String: Int] = [:]
        /// Queue rows dropped because an earlier row has the same uuid.
        var duplicates = 0
        var conflictingDuplicates = 0

        /// Indexes the fixes by uuid in one sized pass (growing a million-entry dictionary row by
        /// row rehashes it ~20 times). The uuid column is UNIQUE in every known schema, but a
        /// damaged or hand-made dump may repeat one: the first row wins.
        mutating func index() {
            byUUID.reserveCapacity(fixes.count + 1024)
            var repeated: [Int] = []
            for i in fixes.indices {
                if let existing = byUUID.updateValue(i, forKey: fixes[i].uuid) {
                    byUUID[fixes[i].uuid] = existing
                    repeated.append(i)
                    duplicates += 1
                    if fixes[existing].time != fixes[i].time { conflictingDuplicates += 1 }
                }
            }
            guard !repeated.isEmpty else { return }
            for i in repeated.reversed() { fixes.remove(at: i) }
            byUUID.removeAll(keepingCapacity: true)
            for i in fixes.indices { byUUID[fixes[i].uuid] = i }
        }
    }
}

/// Merges the queue's fixes with the parsed log lines into the complete trace: location lines
/// deduplicated by uuid (raw_* preferred), reject lines added, adjust lines folded into their
/// accepted fix, then sorted by time. Lines can be added in batches, in log order, while the log
/// is still being read; conflicts become located warnings.
struct TraceMerger {
    private var fixes: [Fix]
    private var byUUID: [String: Int]
    private let geofences: [QueueRecord]
    private var adjustLines: [Fix] = []
    private var stats = Trace.Stats()
    private let warnings: WarningLog

    init(queue: consuming TraceBuilder.QueuePart, warnings: WarningLog) {
        // Taken out of `queue` so that mutating them does not copy a million entries.
        fixes = queue.fixes
        byUUID = queue.byUUID
        queue.fixes = []
        queue.byUUID = [:]
        geofences = queue.geofences
        stats.queueLocations = fixes.count + queue.duplicates
        stats.duplicates = queue.duplicates
        stats.conflictingDuplicates = queue.conflictingDuplicates
        self.warnings = warnings
    }

    /// Merges parsed lines, which must come in log order.
    mutating func add(_ items: [TraceBuilder.ParsedLines.Item]) {
        for item in items {
            let fix = item.fix
            switch item.kind {
            case .reject, .unmatchedLocation:
                fixes.append(fix)
            case .adjust:
                adjustLines.append(fix)
            case .location:
                guard let existing = byUUID[fix.uuid] else {
                    byUUID[fix.uuid] = fixes.count
                    fixes.append(fix)
                    continue
                }
                merge(fix, into: existing)
            }
        }
    }

    /// A location line whose uuid is already in the trace: one fix, two sources.
    private mutating func merge(_ fix: Fix, into existing: Int) {
        stats.duplicates += 1
        if abs(fixes[existing].time - fix.time) > 0.0005 {
            stats.conflictingDuplicates += 1
            let kept = fixes[existing]
            let other = kept.rowId.map { "location_events row \($0)" } ?? kept.logId.map { "log_entries row \($0)" } ?? "an earlier row"
            warnings.add(table: "log_entries", rowId: fix.logId,
                         "uuid \(fix.uuid) also stands in \(other) with another timestamp (\(kept.timestampText) vs \(fix.timestampText)); the first is used")
        }
        // raw_* wins over the engine's smoothed output; otherwise keep the first copy.
        if fix.isRaw && !fixes[existing].isRaw {
            fixes[existing].latitude = fix.latitude
            fixes[existing].longitude = fix.longitude
            fixes[existing].isRaw = true
            fixes[existing].source = .logLocation
        }
        if fixes[existing].logId == nil { fixes[existing].logId = fix.logId }
        if fixes[existing].accuracy == nil { fixes[existing].accuracy = fix.accuracy }
        if fixes[existing].speed == nil { fixes[existing].speed = fix.speed }
        if fixes[existing].recordedOdometer == nil { fixes[existing].recordedOdometer = fix.recordedOdometer }
        if fixes[existing].isMoving == nil { fixes[existing].isMoving = fix.isMoving }
        if fixes[existing].headingOrNaN.isNaN { fixes[existing].headingOrNaN = fix.headingOrNaN }
        if fixes[existing].altitudeOrNaN.isNaN { fixes[existing].altitudeOrNaN = fix.altitudeOrNaN }
    }

    /// The trace: adjust lines folded in, sorted by time, indexed. `lines` gives the line counts.
    consuming func finish(lines: TraceBuilder.ParsedLines) -> Trace {
        stats.logLocations = lines.locations
        stats.logRejects = lines.rejects
        stats.logAdjusts = lines.adjusts
        stats.skippedLines = lines.skipped
        mergeAdjustments()
        // The queue drains in time order, so the trace is usually sorted already: check in O(n) first.
        let ordered: (Fix, Fix) -> Bool = { a, b in
            if a.time != b.time { return a.time < b.time }
            return Fix.tieOrder(a, b)
        }
        if !zip(fixes.indices.dropLast(), fixes.indices.dropFirst()).allSatisfy({ !ordered(fixes[$1], fixes[$0]) }) {
            fixes.sort(by: ordered)
        }
        for i in fixes.indices {
            fixes[i].index = i
            if fixes[i].isRaw { stats.rawPositions += 1 } else { stats.smoothedOnly += 1 }
        }
        return Trace(fixes: fixes, geofences: geofences, stats: stats)
    }

    /// An adjusted fix is logged twice: the filter.adjust line (raw position, before the move) and
    /// the accepted fix (queue record / location line, adjusted position) with the same timestamp.
    /// Replaying both would feed the engine one fix twice, so they become one fix: the accepted
    /// fix's identity (uuid, accuracy, odometer) at the adjust line's raw position.
    private mutating func mergeAdjustments() {
        guard !adjustLines.isEmpty else { return }
        var byMillis: [Int64: Int] = [:]
        for (i, fix) in fixes.enumerated() where fix.source == .queue || fix.source == .logLocation {
            byMillis[Int64((fix.time * 1000).rounded())] = byMillis[Int64((fix.time * 1000).rounded())] ?? i
        }
        for line in adjustLines {
            let key = Int64((line.time * 1000).rounded())
            if let i = byMillis[key] {
                byMillis[key] = nil
                fixes[i].latitude = line.latitude
                fixes[i].longitude = line.longitude
                fixes[i].isRaw = true
                fixes[i].source = .logAdjust
                fixes[i].accuracy = fixes[i].accuracy ?? line.accuracy
                fixes[i].speed = fixes[i].speed ?? line.speed
                if fixes[i].logId == nil { fixes[i].logId = line.logId }
                stats.adjustsMerged += 1
            } else {
                fixes.append(line)
            }
        }
    }
}
