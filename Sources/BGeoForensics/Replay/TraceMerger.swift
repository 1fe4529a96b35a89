import BGeoReader
import Foundation

extension TraceBuilder {
    /// The queue's part of a trace: its location records as fixes (drain order), indexed by uuid,
    /// and its geofences.
    struct QueuePart {
        var fixes: [Fix] = []
        var geofences: [QueueRecord] = []
        /// By the uuids' bytes (`ExactText`), as SQLite's UNIQUE tells them apart: `café` spelled
        /// precomposed and decomposed are two records, not a duplicate (stop 56).
        var byUUID: [ExactText: Int] = [:]
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
                if let existing = byUUID.updateValue(i, forKey: ExactText(fixes[i].uuid)) {
                    byUUID[ExactText(fixes[i].uuid)] = existing
                    repeated.append(i)
                    duplicates += 1
                    if fixes[existing].time != fixes[i].time { conflictingDuplicates += 1 }
                }
            }
            guard !repeated.isEmpty else { return }
            for i in repeated.reversed() { fixes.remove(at: i) }
            byUUID.removeAll(keepingCapacity: true)
            for i in fixes.indices { byUUID[ExactText(fixes[i].uuid)] = i }
        }
    }
}

/// Merges the queue's fixes with the parsed log lines into the complete trace: location lines
/// deduplicated by uuid (raw_* preferred), reject lines added, adjust lines folded into their
/// accepted fix, then sorted by time. Lines can be added in batches, in log order, while the log
/// is still being read; conflicts become located warnings.
struct TraceMerger {
    private var fixes: [Fix]
    private var byUUID: [ExactText: Int]
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
    mutating func add(_ lines: [Fix]) {
        for fix in lines {
            switch fix.lineKind {
            case .reject, .unmatchedLocation:
                fixes.append(fix)
            case .adjust:
                adjustLines.append(fix)
            case .location:
                guard let existing = byUUID[ExactText(fix.uuid)] else {
                    byUUID[ExactText(fix.uuid)] = fixes.count
                    fixes.append(fix)
                    continue
                }
                merge(fix, into: existing)
            }
        }
    }

    /// A location line whose uuid is already in the trace: one fix, two sources.
    private mutating func merge(_ fix: Fix, into existing: Int) {
        if let warning = TraceMerger.merge(fix, into: &fixes[existing], stats: &stats) { warnings.add(warning) }
    }

    /// Folds a location line into the fix `kept` that already stands for its uuid (the streamed
    /// trace does the same, see `CompleteTraceSemantics`): raw_* wins over the engine's smoothed
    /// output, otherwise the first copy is kept and only its missing fields are filled. Returns the
    /// located warning when the two copies disagree on the time.
    static func merge(_ fix: Fix, into kept: inout Fix, stats: inout Trace.Stats) -> DumpWarning? {
        stats.duplicates += 1
        var warning: DumpWarning?
        if abs(kept.time - fix.time) > 0.0005 {
            stats.conflictingDuplicates += 1
            let other = kept.rowId.map { "location_events row \($0)" } ?? kept.logId.map { "log_entries row \($0)" } ?? "an earlier row"
            warning = DumpWarning(table: "log_entries", rowId: fix.logId, message:
                "uuid \(fix.uuid) also stands in \(other) with another timestamp (\(kept.timestampText) vs \(fix.timestampText)); the first is used")
        }
        if fix.isRaw && !kept.isRaw {
            kept.latitude = fix.latitude
            kept.longitude = fix.longitude
            kept.isRaw = true
            kept.source = .logLocation
        }
        if kept.logId == nil { kept.logId = fix.logId }
        if kept.accuracy == nil { kept.accuracy = fix.accuracy }
        if kept.speed == nil { kept.speed = fix.speed }
        if kept.recordedOdometer == nil { kept.recordedOdometer = fix.recordedOdometer }
        if kept.isMoving == nil { kept.isMoving = fix.isMoving }
        if kept.headingOrNaN.isNaN { kept.headingOrNaN = fix.headingOrNaN }
        if kept.altitudeOrNaN.isNaN { kept.altitudeOrNaN = fix.altitudeOrNaN }
        return warning
    }

    /// The accepted fix of a filter.adjust line's millisecond becomes one fix with it: its identity
    /// (uuid, accuracy, odometer) at the line's raw position.
    static func fold(adjustLine line: Fix, into fix: inout Fix, stats: inout Trace.Stats) {
        fix.latitude = line.latitude
        fix.longitude = line.longitude
        fix.isRaw = true
        fix.source = .logAdjust
        fix.accuracy = fix.accuracy ?? line.accuracy
        fix.speed = fix.speed ?? line.speed
        if fix.logId == nil { fix.logId = line.logId }
        stats.adjustsMerged += 1
    }

    /// Whether a fix can absorb a filter.adjust line of its millisecond (an accepted fix).
    static func takesAdjustment(_ fix: Fix) -> Bool { fix.source == .queue || fix.source == .logLocation }

    /// The trace: adjust lines folded in, sorted by time, indexed. `lines` gives the line counts.
    consuming func finish(lines: TraceBuilder.ParsedLines) -> Trace {
        stats.logLocations = lines.locations
        stats.logRejects = lines.rejects
        stats.logAdjusts = lines.adjusts
        stats.skippedLines = lines.skipped
        mergeAdjustments()
        TraceOrder.sort(&fixes)
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
        for (i, fix) in fixes.enumerated() where TraceMerger.takesAdjustment(fix) {
            byMillis[Int64((fix.time * 1000).rounded())] = byMillis[Int64((fix.time * 1000).rounded())] ?? i
        }
        for line in adjustLines {
            let key = Int64((line.time * 1000).rounded())
            if let i = byMillis[key] {
                byMillis[key] = nil
                TraceMerger.fold(adjustLine: line, into: &fixes[i], stats: &stats)
            } else {
                fixes.append(line)
            }
        }
    }
}
