import BGeoReader
import Foundation

/// The complete trace of a dump: every fix the engine saw, in time order, ready for replay.
public struct Trace: Sendable {
    /// Sorted by time, ties by row id (see `Fix.tieOrder`); `fixes[i].index == i`.
    public var fixes: [Fix]
    /// Geofence records: events, not fixes. Not replayed; kept for reports.
    public var geofences: [QueueRecord]
    public var stats: Stats

    /// Where the fixes came from and what was merged.
    public struct Stats: Sendable, Equatable {
        /// Queue records of kind location.
        public var queueLocations = 0
        /// `location` log lines read.
        public var logLocations = 0
        /// `filter.reject` lines read.
        public var logRejects = 0
        /// `filter.adjust` lines read.
        public var logAdjusts = 0
        /// Uuids seen more than once (queue and log, or log twice): each counted once per extra copy.
        public var duplicates = 0
        /// Duplicates whose copies disagree on the timestamp (the first-read copy's time is kept).
        public var conflictingDuplicates = 0
        /// filter.adjust lines merged into the accepted fix with the same timestamp (one fix, raw position).
        public var adjustsMerged = 0
        /// Fixes replayed from a raw position (raw_* or a filter line).
        public var rawPositions = 0
        /// Fixes known only by the engine's smoothed output (queue record or location line without raw_*).
        public var smoothedOnly = 0
        /// Log lines skipped as unreadable (each has a located warning).
        public var skippedLines = 0

        public init() {}

        public var json: JSONValue {
            ["queueLocations": .from(queueLocations), "logLocations": .from(logLocations), "logRejects": .from(logRejects),
             "logAdjusts": .from(logAdjusts), "duplicates": .from(duplicates),
             "conflictingDuplicates": .from(conflictingDuplicates), "adjustsMerged": .from(adjustsMerged),
             "rawPositions": .from(rawPositions), "smoothedOnly": .from(smoothedOnly), "skippedLines": .from(skippedLines)]
        }
    }

    public init(fixes: [Fix], geofences: [QueueRecord] = [], stats: Stats = Stats()) {
        self.fixes = fixes
        self.geofences = geofences
        self.stats = stats
    }
}

/// Builds the complete trace (replay-semantics.md, "Which fixes"): queue records of kind location
/// plus `location` log lines, deduplicated by uuid, raw_* preferred; `filter.reject` and
/// `filter.adjust` lines as raw fixes; geofence records set aside.
public enum TraceBuilder {
    public static func completeTrace(dump: Dump) -> Trace {
        // The queue and the log lines are independent scans, the two big costs of a replay: the log
        // lines are parsed on a second thread through their own connection to the private copy.
        // Their warnings are appended after the queue's, the order a sequential read gives.
        let lineScan = ScanRunner.beside(dump) { readLogLines($0) }
        let queue = readQueue(dump)
        var lines = lineScan.value()
        var merger = TraceMerger(queue: consume queue, warnings: dump.warnings)
        merger.add(lines.takeItems())  // the parsed lines are freed once merged
        return merger.finish(lines: lines)
    }

    /// The queue's location records as fixes (indexed by uuid), geofence records set aside.
    static func readQueue(_ dump: Dump) -> QueuePart {
        var part = QueuePart()
        dump.forEachDecodedRecord { row in
            if row.kind == .geofence {
                part.geofences.append(row.record(includeText: false))
                return
            }
            part.fixes.append(queueFix(row))
        }
        part.index()
        return part
    }
}
