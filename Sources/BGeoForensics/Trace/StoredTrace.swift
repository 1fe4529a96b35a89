import BGeoReader
import Foundation

/// A built trace kept on disk in the private working folder, in trace order: what every command
/// reads instead of an array of a million fixes. Each pass (`forEach`) reads the tape from the
/// start through a small buffer, so a command may walk it as often as its output needs.
final class StoredTrace<Element: SpoolRecord>: Sendable {
    /// Fixes in the trace.
    public let count: Int
    private let tape: String
    private let geofenceSource: SortedSource<ReportGeofence>?
    /// Geofence events (queued geofence records), in time order.
    public let geofenceCount: Int

    init(tape: String, count: Int, geofences: SortedSource<ReportGeofence>?, geofenceCount: Int) {
        self.tape = tape
        self.count = count
        geofenceSource = geofences
        self.geofenceCount = geofenceCount
    }

    deinit { unlink(tape) }

    /// Visits every fix in trace order.
    public func forEach(_ body: (Element) throws -> Void) throws {
        try forEachRecord { try body(Element(from: &$0)) }
    }

    /// Visits every record in trace order, for a decoder that reads only part of it.
    func forEachRecord(_ body: (inout TapeRecordReader) throws -> Void) throws {
        let reader = try TapeReader(path: tape)
        while var record = reader.next() { try body(&record) }
        if let failure = reader.failure { throw failure }
    }

    /// Visits every geofence event in time order (ties by queue row).
    public func forEachGeofence(_ body: (ReportGeofence) throws -> Void) throws {
        guard let geofenceSource else { return }
        let reader = try geofenceSource.reader()
        while let geofence = reader.next() { try body(geofence) }
        if let failure = reader.failure { throw failure }
    }

    /// The geofence events, in time order (there are few: they are events, not fixes).
    public func geofences() throws -> [ReportGeofence] {
        var all: [ReportGeofence] = []
        try forEachGeofence { all.append($0) }
        return all
    }
}

/// Replay's complete trace, stored: every fix in trace order with its `index`, the counts of
/// how it was assembled, and the queue's facts.
public final class CompleteTrace: Sendable {
    let fixes: StoredTrace<Fix>
    public let stats: Trace.Stats
    /// The pending records the trace holds (queue-row fixes and geofence records).
    public let queue: QueueFacts
    /// How many passes the assembly took (more than one when a uuid's copies were far apart).
    let assemblyRuns: Int
    /// Records that came later than the reorder windows allow and were sorted on disk.
    let spilledRecords: Int
    /// Whether the first pass was made while the dump was read (nothing spilled).
    let assembledLive: Bool
    /// Milliseconds with more fixes than the window holds, settled on disk (a stuck clock).
    let spilledMilliseconds: Int
    /// The private copy whose folder holds the tape: kept as long as the trace is.
    private let copy: EvidenceCopy

    init(dump: Dump, fixes: StoredTrace<Fix>, stats: Trace.Stats, queue: QueueFacts, assemblyRuns: Int, spilledRecords: Int,
         assembledLive: Bool = false, spilledMilliseconds: Int = 0) {
        copy = dump.privateCopy
        self.spilledMilliseconds = spilledMilliseconds
        self.assembledLive = assembledLive
        self.fixes = fixes
        self.stats = stats
        self.queue = queue
        self.assemblyRuns = assemblyRuns
        self.spilledRecords = spilledRecords
    }

    public var count: Int { fixes.count }
    public var geofenceCount: Int { fixes.geofenceCount }

    /// Visits every fix in trace order (`fix.index` counts from 0).
    public func forEachFix(_ body: (Fix) throws -> Void) throws { try fixes.forEach(body) }

    /// Visits every geofence event in time order.
    public func forEachGeofence(_ body: (ReportGeofence) throws -> Void) throws { try fixes.forEachGeofence(body) }

    /// The geofence events, in time order.
    public func geofences() throws -> [ReportGeofence] { try fixes.geofences() }
}
