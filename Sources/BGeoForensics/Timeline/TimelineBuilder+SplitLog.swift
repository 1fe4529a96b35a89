import BGeoReader
import Foundation

extension TimelineBuilder {
    /// What a second connection reads of the log's later half for the timeline: its `location`
    /// lines folded into a coverage map of their own, its `queue.insert` lines counted, and every
    /// other row kept as a `LogEntry` for the builder to handle, in order, after its own half.
    struct TimelineLogPart: Sendable {
        var coverage: CoverageMap
        /// Rows that passed the query (as the builder's `logRows` counts them).
        var rows = 0
        /// `location` lines among them.
        var locationLines = 0
        var firstAt: Double?
        var lastAt: Double?
        /// The first row id the statement yielded: the boundary the builder's pass must meet.
        var firstRowId: Int64?
        var entries: [LogEntry] = []
        var keptBytes = 0
        /// Read to the end, cleanly, within the limits below: the half can stand for the rows.
        var complete = false

        /// Past these the half is given up (the builder reads on itself): a log made mostly of
        /// rows that must be handled one by one gains nothing from the split, and memory stays flat.
        static let entryLimit = 20_000
        static let byteLimit = 16 << 20
    }

    /// The timeline's log read in two halves: this thread reads the first half (and the queue),
    /// a second connection the later half at the same time. The result is exactly one pass's —
    /// same rows, same handling order, same warnings — because the later half is kept only by
    /// `ScanRunner`'s **clean stand-in** rule (read to the end without a warning or damage, this
    /// thread's pass undamaged) and when this pass met its first row. Otherwise this thread's
    /// pass simply goes on through the later half itself, as it would have without the split.
    final class SplitLogRead {
        private let middle: Int64
        private let dump: Dump
        private let work: ApartRead<TimelineLogPart>
        private var joined = false
        private var adopted: TimelineLogPart?

        private init(middle: Int64, dump: Dump, work: ApartRead<TimelineLogPart>) {
            self.middle = middle
            self.dump = dump
            self.work = work
        }

        /// Starts reading the later half of `dump`'s log; nil when the log is small (under
        /// `minimumRows` row ids), a second connection cannot be opened, or this process reads on
        /// one thread.
        static func start(on dump: Dump, query: LogQuery, threshold: Double, minimumRows: Int64 = 50_000) -> SplitLogRead? {
            guard dump.layout.hasLog, query.order == .oldestFirst, query.grep == nil,
                  let halves = dump.rowHalves(of: "log_entries", minimumRows: minimumRows),
                  // Damage ends the split (this thread then reads on): no salvage on the second connection.
                  let work = ScanRunner.apart(dump, stopsAtDamage: true, {
                      read($0, rows: halves.second, query: query, threshold: threshold)
                  }) else { return nil }
            return SplitLogRead(middle: halves.second.lowerBound, dump: dump, work: work)
        }

        /// The builder's pass calls this with each row id it meets, first thing. At the first id
        /// of the later half it waits for the second connection, and ends the pass (false) when
        /// that half can stand for the rest.
        func continuing(atRow rowId: Int64) -> Bool {
            guard rowId >= middle, !joined else { return true }
            joined = true
            guard let later = work.cleanValue(standingInFor: dump), later.complete, later.firstRowId == rowId else { return true }
            adopted = later
            return false
        }

        /// The later half when the pass handed over to it; nil when the pass read every row itself
        /// (after waiting for the second connection, so no thread outlives the read).
        func finish() -> TimelineLogPart? {
            if !joined {
                joined = true
                work.discard()
            }
            defer { adopted = nil }
            return adopted
        }

        private struct Full: Error {}

        private static func read(_ reader: Dump, rows: Range<Int64>, query: LogQuery, threshold: Double) -> TimelineLogPart {
            var half = TimelineLogPart(coverage: CoverageMap(threshold: threshold))
            var folder = LocationLineFolder()
            func note(_ time: Double) {
                half.rows += 1
                if half.firstAt == nil { half.firstAt = time }
                half.lastAt = time
            }
            do {
                try reader.forEachLogEntry(query, rows: rows, continuing: { rowId in
                    if half.firstRowId == nil { half.firstRowId = rowId }
                    return true
                }, takenFromCells: { row in
                    guard let kind = folder.take(row, into: &half.coverage, queueInserts: true) else { return false }
                    if kind == .location { half.locationLines += 1 }
                    note(row.time)
                    return true
                }) { entry in
                    note(entry.time)
                    half.keptBytes += entry.tsText.utf8.count + entry.src.utf8.count + entry.event.utf8.count
                        + (entry.message?.utf8.count ?? 0) + (entry.dataText?.utf8.count ?? 0)
                    half.entries.append(entry)
                    if half.entries.count > TimelineLogPart.entryLimit || half.keptBytes > TimelineLogPart.byteLimit { throw Full() }
                }
                half.complete = !reader.scanInterrupted
            } catch {
                half.complete = false
            }
            return half
        }
    }
}
