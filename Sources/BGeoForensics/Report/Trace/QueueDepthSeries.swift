import BGeoReader

/// Queue depth over time, from what the log says: `queue.insert` counts (the depth after the
/// insert) and `sync.deferred` pending counts set it; `queue.prune` counts (records evicted, not
/// the depth left) and successful uploads and poison drops (from the timeline's attempts) take
/// records off it. The last point is the queue at dump time.
public enum QueueDepthSeries {
    /// A log row about the depth: one that states it (`queue.insert` count, `sync.deferred`
    /// pending), or one that evicts records from it (`queue.prune` count).
    public struct Level: Sendable {
        let time: Double
        /// The depth stated, or for an eviction the number of records evicted.
        let depth: Int
        let logId: Int64
        /// True for `queue.prune`: `depth` records leave the queue.
        var evicts = false
    }

    /// One point of the series, with the log row that set it (nil for the dump-time point).
    public struct Point: Sendable, Equatable {
        public var time: Double
        public var depth: Int
        public var logId: Int64?
    }

    static let scanner = FieldScanner(paths: ["count", "pending"])

    /// Collects the stated depths from log entries, `data` picked by the field scanner (no JSON
    /// trees), onto a spool in the private folder sorted by time and log row: a log of millions
    /// of `queue.insert` rows keeps none of them in memory.
    struct LevelReader {
        /// The log events that state a depth.
        static let events: Set<String> = ["queue.insert", "queue.prune", "sync.deferred"]
        private let spool: SortedSpool<Level>
        private let copy: EvidenceCopy
        private var statesDepth = false
        private var values: [ScannedValue] = []

        /// Spools into `dump`'s working folder.
        init(dump: Dump, windows: TraceWindows) {
            spool = SortedSpool(folder: dump.workFiles, stem: "depth", window: windows.reorder)
            copy = dump.privateCopy
        }

        /// Takes `entry` if it states a depth (other entries are ignored).
        mutating func add(_ row: some LogLineFields) {
            let event = row.event
            guard LevelReader.events.contains(event),
                  row.withData({ bytes in bytes.map { scanner.scan($0, into: &values) } ?? false }) else { return }
            let value = event == "sync.deferred" ? values[1].double : values[0].double
            if let value, value.rounded() == value, abs(value) < 1e15, value >= 0 {
                let evicts = event == "queue.prune"
                if !evicts { statesDepth = true }
                spool.add(Level(time: row.time, depth: Int(value), logId: row.rowId, evicts: evicts))
            }
        }

        /// The levels read, in order; throws the spool's first working-file error.
        func finish() throws(WorkFileError) -> StoredLevels {
            StoredLevels(levels: try spool.finish(), statesDepth: statesDepth, copy: copy)
        }
    }

    /// The stated depths of a log, on their spool in (time, log row) order.
    struct StoredLevels: Sendable {
        let levels: SortedSource<Level>
        /// Some level states a depth (evictions alone draw nothing).
        let statesDepth: Bool
        /// The private copy whose folder holds the spool, kept for as long as the levels are read
        /// (a report is drawn after its `Dump` is gone).
        let copy: EvidenceCopy
    }

    /// The series, gathered: the stored levels, the batches that left the queue, and the queue
    /// at dump time. Its points are read, in order, as often as asked (`forEachPoint`), never held.
    struct Series: Sendable {
        let stored: StoredLevels?
        /// Delivered or dropped batches: (when, records, the log row that says so), in that order.
        let removals: [(time: Double, count: Int, order: Int64)]
        let pendingAtDump: Int
        let dumpTime: Double?

        init(stored: StoredLevels?, attempts: [UploadAttempt], pendingAtDump: Int, dumpTime: Double?) {
            self.stored = stored
            removals = attempts.filter { $0.outcome == .success || $0.outcome == .drop }
                .map { a in (a.respondedAt ?? a.at, a.count, a.responseLogId ?? a.logId) }
                .sorted { $0.time != $1.time ? $0.time < $1.time : $0.order < $1.order }
            self.pendingAtDump = pendingAtDump
            self.dumpTime = dumpTime
        }

        /// Calls `body` with each point in time order: stated depths, minus each eviction and
        /// each delivered or dropped batch, ending at the queue at dump time. At one instant a
        /// level comes before a batch logged by a later row (both by time, then log row).
        func forEachPoint(_ body: (Point) -> Void) throws(WorkFileError) {
            guard let stored, stored.statesDepth else { return }
            let reader = try stored.levels.reader()
            var level = reader.next()
            var next = 0
            var depth: Int?
            var last: Double?
            func emit(_ time: Double, _ logId: Int64) {
                guard let depth else { return }  // before the first stated depth the size is unknown
                body(Point(time: time, depth: depth, logId: logId))
                last = time
            }
            while level != nil || next < removals.count {
                if let l = level, next == removals.count || (l.time, l.logId) <= (removals[next].time, removals[next].order) {
                    if l.evicts { depth = depth.map { max(0, $0 - l.depth) } } else { depth = l.depth }
                    emit(l.time, l.logId)
                    level = reader.next()
                } else {
                    let r = removals[next]
                    depth = depth.map { max(0, $0 - r.count) }
                    emit(r.time, r.order)
                    next += 1
                }
            }
            if let dumpTime {
                let time = max(dumpTime, last ?? dumpTime)
                body(Point(time: time, depth: pendingAtDump, logId: nil))
            }
        }

        /// Every point, gathered (for a small dump, or a test).
        func points() throws(WorkFileError) -> [Point] {
            var out: [Point] = []
            try forEachPoint { out.append($0) }
            return out
        }
    }
}

extension QueueDepthSeries.Level: SpoolRecord {
    /// A level sorts by its time, then its log row.
    var spoolKey: SpoolKey { SpoolKey(time: time, sequence: logId) }

    func write(to sink: some TapeSink) {
        sink.put(time)
        sink.put(Int64(depth))
        sink.put(logId)
        sink.put(UInt8(evicts ? 1 : 0))
    }

    init(from record: inout TapeRecordReader) {
        time = record.double()
        depth = Int(record.int64())
        logId = record.int64()
        evicts = record.uint8() == 1
    }
}
