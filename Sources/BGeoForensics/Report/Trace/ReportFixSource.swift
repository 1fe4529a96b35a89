import BGeoReader
import Foundation
import Synchronization

/// What the report draws from: the fixes in time order, walked as often as a drawing needs, the
/// geofence events and the queue head. A small trace is held in memory (`ReportTrace`); the
/// report's own is stored in the private working folder (`StoredReportTrace`), so drawing a
/// million fixes keeps only what is drawn.
public protocol ReportFixSource: Sendable {
    var fixCount: Int { get }
    /// Geofence events, in time order (few: events, not fixes).
    var geofences: [ReportGeofence] { get }
    /// uuid of the oldest record still in the queue (the next to upload).
    var queueHeadUUID: String? { get }
    /// Visits every fix in time order.
    func forEachFix(_ body: (DecidedFix) -> Void)
    /// Visits every fix in time order as the charts read it.
    func forEachChartSample(_ body: (ChartSample) -> Void)
    /// Every decision's count, exact.
    func counts() -> [Decision: Int]
}

extension ReportFixSource {
    public func forEachChartSample(_ body: (ChartSample) -> Void) {
        forEachFix { body(ChartSample($0)) }
    }

    public func counts() -> [Decision: Int] {
        var accepted = 0, adjusted = 0, rejected = 0
        forEachFix { fix in
            switch fix.decision.decision {
            case .accepted: accepted += 1
            case .adjusted: adjusted += 1
            case .rejected: rejected += 1
            }
        }
        return [.accepted: accepted, .adjusted: adjusted, .rejected: rejected]
    }

    /// One decision's count, exact (drawing may simplify, counts never do).
    public func count(_ decision: Decision) -> Int { counts()[decision] ?? 0 }

    /// Every fix in an array (tests and small traces only).
    func allFixes() -> [DecidedFix] {
        var all: [DecidedFix] = []
        forEachFix { all.append($0) }
        return all
    }
}

extension ReportTrace: ReportFixSource {
    public var fixCount: Int { fixes.count }

    public func forEachFix(_ body: (DecidedFix) -> Void) {
        for i in fixes.indices { body(fixes[i]) }
    }
}

/// The report's trace stored on disk: every fix with the replay's decision, in time order, plus
/// the counts taken as it was written. A pass that cannot read the tape back stops and leaves
/// `readFailure` set; the report is then not written.
public final class StoredReportTrace: ReportFixSource, Sendable {
    let stored: StoredTrace<DecidedFix>
    public let geofences: [ReportGeofence]
    public let queueHeadUUID: String?
    private let decisionCounts: [Decision: Int]
    /// The drawings' first pass, made as the tape was written.
    public let sketch: ReportTraceSketch?
    /// The first error a pass met reading the tape back (passes may run on several threads).
    private let failure = Mutex<(any Error)?>(nil)
    /// The private copy whose folder holds the tape: kept as long as the trace is.
    private let copy: EvidenceCopy

    init(dump: Dump, stored: StoredTrace<DecidedFix>, geofences: [ReportGeofence], queueHeadUUID: String?,
         counts: [Decision: Int], sketch: ReportTraceSketch? = nil) {
        copy = dump.privateCopy
        self.sketch = sketch
        self.stored = stored
        self.geofences = geofences
        self.queueHeadUUID = queueHeadUUID
        decisionCounts = counts
    }

    public var fixCount: Int { stored.count }

    public func counts() -> [Decision: Int] { decisionCounts }

    public func forEachFix(_ body: (DecidedFix) -> Void) {
        do {
            try stored.forEach(body)
        } catch {
            noteFailure(error)
        }
    }

    /// Reads only the chart's fields of each record (no strings are built).
    public func forEachChartSample(_ body: (ChartSample) -> Void) {
        do {
            try stored.forEachRecord { body(ChartSample(from: &$0)) }
        } catch {
            noteFailure(error)
        }
    }

    private func noteFailure(_ error: any Error) {
        failure.withLock { $0 = $0 ?? error }
    }

    /// Why a pass could not read the stored trace back, if one could not.
    public var readFailure: (any Error)? {
        failure.withLock { $0 }
    }
}
