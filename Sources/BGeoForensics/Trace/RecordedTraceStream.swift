import BGeoReader
import Foundation

/// The recorded trace, stored: every fix as the engine recorded it, in time order, the geofence
/// events, and the queue head.
public final class RecordedTrace: Sendable {
    let fixes: StoredTrace<DecidedFix>
    /// uuid of the oldest record still in the queue (the next to upload).
    public let queueHeadUUID: String?
    /// The private copy whose folder holds the tape: kept as long as the trace is.
    private let copy: EvidenceCopy
    /// Where its fixes lie (found while it was stored).
    let bounds: RecordedTraceBounds

    init(dump: Dump, fixes: StoredTrace<DecidedFix>, queueHeadUUID: String?, bounds: RecordedTraceBounds) {
        copy = dump.privateCopy
        self.bounds = bounds
        self.fixes = fixes
        self.queueHeadUUID = queueHeadUUID
    }

    public var count: Int { fixes.count }
    public var geofenceCount: Int { fixes.geofenceCount }

    /// Visits every fix in trace order.
    public func forEachFix(_ body: (DecidedFix) throws -> Void) throws { try fixes.forEach(body) }

    /// The geofence events, in time order.
    public func geofences() throws -> [ReportGeofence] { try fixes.geofences() }
}

extension RecordedTraceReader {
    /// The queue's half of the recorded trace, spooled: fixes, geofence events, the head's uuid.
    struct QueueSpools {
        let fixes: SortedSpool<DecidedFix>
        let geofences: SortedSpool<ReportGeofence>
        var head: String?
    }

    /// The recorded trace built in bounded memory and stored in the private working folder: the
    /// same fixes in the same order as `read(_:)`, which holds them all in memory.
    public static func stored(_ dump: Dump, windows: TraceWindows = .standard) throws -> RecordedTrace {
        let folder = dump.workFiles
        // A third thread assembles the two spools' runs as they are written.
        let feeds = (queue: LiveFeed(), log: LiveFeed())
        let live = TraceAssembler.LivePass(TraceAssembler(RecordedTraceSemantics(), windows: windows, folder: folder),
                                           queue: feeds.queue, log: feeds.log)
        let logFeed = feeds.log
        let lineScan = ScanRunner.beside(dump) { readLines($0, windows: windows, feed: logFeed) }
        var queue = QueueSpools(fixes: SortedSpool(folder: folder, stem: "recorded-queue", window: windows.reorder, feed: feeds.queue),
                                geofences: SortedSpool(folder: folder, stem: "recorded-geofences", window: windows.reorder))
        // The rows and warnings of `forEachRecord(.fieldsOnly)`, a fix made from its row.
        dump.forEachDecodedRecord { row in
            if queue.head == nil { queue.head = row.uuid }
            if row.kind == .geofence {
                queue.geofences.add(ReportGeofence(record: row.record(includeText: false)))
            } else {
                queue.fixes.add(queuedFix(row))
            }
        }
        let lines = lineScan.value()
        let queueFixes: SortedSource<DecidedFix>, lineSource: SortedSource<DecidedFix>, geofences: SortedSource<ReportGeofence>
        do {
            queueFixes = try queue.fixes.finish()
            lineSource = try lines.finish()
            geofences = try queue.geofences.finish()
        } catch {
            live.cancel()
            throw error
        }
        let result = try live.assemble(queue: queueFixes, log: lineSource)
        let stored = StoredTrace<DecidedFix>(tape: result.tape, count: result.count, geofences: geofences,
                                            geofenceCount: queue.geofences.count)
        return RecordedTrace(dump: dump, fixes: stored, queueHeadUUID: queue.head, bounds: live.semantics.bounds)
    }

    /// The log's fix lines, parsed and spooled.
    static func readLines(_ dump: Dump, windows: TraceWindows, feed: LiveFeed? = nil) -> SortedSpool<DecidedFix> {
        let spool = SortedSpool<DecidedFix>(folder: dump.workFiles, stem: "recorded-lines", window: windows.reorder, feed: feed)
        // The parser's scan validates each line's data anyway: it says when one is not JSON,
        // instead of a second scan of every line before it (the warning and its place are the same).
        var parser = LineParser()
        parser.warnsInvalidData = true
        var query = LogQuery(events: TraceBuilder.ParsedLines.eventList)
        query.validatesData = false
        // Each line is parsed from its row's cells: no LogEntry (four texts) is built for it.
        dump.forEachLogRow(query) { row in
            if let line = parser.parse(row, warnings: dump.warnings) { spool.add(line) }
        }
        return spool
    }
}
