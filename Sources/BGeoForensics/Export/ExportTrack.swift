import BGeoReader

/// The trace of a dump as the exports (GPX, GeoJSON, KML) read it: every fix in time order as a
/// `TrackPoint`, in the chosen mode, and the geofence events. This is the one place exports touch
/// the trace types: `recorded` and `raw` come from the dump alone (`RecordedTraceReader.stored`),
/// `replayed` from a replay of the complete trace (`TraceBuilder.storedTrace`, `StreamedReplay`)
/// under the dump's config plus `--set` overrides. Both traces are stored in the private working
/// folder; points are made one at a time as a pass visits them (a replayed pass replays again), so
/// memory stays flat at any dump size.
public struct ExportTrack: Sendable {
    public let mode: TrackMode
    /// Geofence events, in time order.
    public let geofences: [ReportGeofence]
    /// What the user should know about how the track was obtained (the replay's config and counts).
    public let notes: [String]
    private let source: Source
    /// Dump text written into an export (uuids here; geofence identifiers are redacted at read).
    private let redactor: Redactor

    private enum Source: Sendable {
        case recorded(RecordedTrace)
        /// With the bounds of its track points, found by the pass that counted the decisions
        /// (`nil` with `known` false: read without that pass, see `read(countingFirst:)`).
        case replayed(CompleteTrace, FilterConfig, bounds: GeoBounds?, known: Bool)
    }
    /// The replay's config as the note names it (replayed mode).
    private var replaySource: String?

    /// Reads the track of `dump` in `mode`. Overrides apply to `replayed` only; a bad one throws
    /// before anything is read.
    public static func read(_ dump: Dump, mode: TrackMode, overrides: [String] = [], redactor: Redactor = .disabled,
                            progress: StageProgress = .silent) throws -> ExportTrack {
        try read(dump, mode: mode, overrides: overrides, learning: SecretsAndConfig(dump, resolved: redactor), progress: progress)
    }

    /// `read`, with a redactor still being learned: it is waited for once the trace is stored.
    /// A replayed track's trace read learns it, and its recorded configuration is `learning`'s
    /// (from the same read's `config` lines when it can). `countingFirst` false (replayed mode):
    /// no pass is made now to count the decisions and find the bounds; the writer's own pass does
    /// (`boundsKnown` false, `replayNote`), so the track is replayed once.
    package static func read(_ dump: Dump, mode: TrackMode, overrides: [String] = [], learning: SecretsAndConfig,
                             countingFirst: Bool = true, progress: StageProgress = .silent) throws -> ExportTrack {
        progress.stage("reading the \(mode.rawValue) track")
        switch mode {
        case .recorded, .raw:
            let trace = try RecordedTraceReader.stored(dump)
            let redactor = learning.redactor
            return ExportTrack(mode: mode, geofences: redacted(try trace.geofences(), redactor), notes: [], source: .recorded(trace),
                               redactor: redactor)
        case .replayed:
            let whatIf = try ReplayOverrides(configFile: nil, sets: overrides)
            // The trace's read of the log learns the secrets and gives the config lines.
            let trace = try TraceBuilder.storedTrace(dump: dump, following: nil, secrets: learning.pendingRedactor)
            let configuration = whatIf.applied(to: learning.configuration)
            let redactor = learning.redactor
            var notes: [String] = []
            var bounds: GeoBounds?
            if countingFirst {
                progress.stage("replaying \(trace.count) fixes")
                // One pass counts the decisions for the note and finds the track's bounds (which a GPX
                // header needs before its points), so no writer replays again just for the bounds.
                var tally = ReplayTally(config: configuration.filter)
                try StreamedReplay.forEachDecision(trace, config: configuration.filter) { fix, d in
                    tally.add(fix, d)
                    if d.decision != .rejected { bounds = GeoBounds.including(bounds, latitude: d.latitude, longitude: d.longitude) }
                }
                let result = tally.finish(odometerReplayed: 0)
                notes = [replayNote(configuration.sourceDescription, accepted: result.accepted, adjusted: result.adjusted,
                                    rejected: result.rejected)]
            }
            var track = ExportTrack(mode: mode, geofences: redacted(try trace.geofences(), redactor), notes: notes,
                                    source: .replayed(trace, configuration.filter, bounds: bounds, known: countingFirst),
                                    redactor: redactor)
            track.replaySource = configuration.sourceDescription
            return track
        }
    }

    private static func replayNote(_ source: String, accepted: Int, adjusted: Int, rejected: Int) -> String {
        "replayed with \(source): \(accepted) accepted, \(adjusted) adjusted, \(rejected) rejected"
    }

    /// The note of a replayed track read without its counting pass, from the decisions a
    /// writer's pass counted (every point's `decision`); the same words as `notes` otherwise.
    public func replayNote(accepted: Int, adjusted: Int, rejected: Int) -> String? {
        replaySource.map { ExportTrack.replayNote($0, accepted: accepted, adjusted: adjusted, rejected: rejected) }
    }

    private static func redacted(_ geofences: [ReportGeofence], _ redactor: Redactor) -> [ReportGeofence] {
        guard redactor.enabled else { return geofences }
        return geofences.map { var g = $0; g.identifier = redactor.redact(text: g.identifier); return g }
    }

    private func redacted(_ uuid: String?) -> String? {
        guard redactor.enabled, let uuid else { return uuid }
        return redactor.redact(text: uuid)
    }

    /// Every fix of the track, in time order.
    public var fixCount: Int {
        switch source {
        case .recorded(let trace): return trace.count
        case .replayed(let trace, _, _, _): return trace.count
        }
    }

    /// The box of the track points (`TrackPoint.onTrack`): found while the trace was stored
    /// (recorded, raw) or by the replay's counting pass (replayed), so a writer that needs it
    /// first (GPX metadata) makes no pass of its own.
    public func trackBounds() -> GeoBounds? {
        switch source {
        case .replayed(_, _, let bounds, _): return bounds
        case .recorded(let trace): return mode == .raw ? trace.bounds.raw : trace.bounds.track
        }
    }

    /// Whether `trackBounds` is known before a pass (false: a replayed track read without its
    /// counting pass, whose bounds a writer gathers on its own pass).
    public var boundsKnown: Bool {
        if case .replayed(_, _, _, let known) = source { return known }
        return true
    }

    /// Visits every fix in time order (the ones off the track line too: see `TrackPoint.onTrack`).
    /// Throws when the stored trace cannot be read back (its working file damaged under the run).
    public func forEachPoint(_ body: (TrackPoint) -> Void) throws(ExportError) {
        do {
            if ScanThreading.allowsSecondThread, fixCount >= ExportTrack.prefetchThreshold {
                try prefetchedPoints(body)
            } else {
                try visitPoints(body)
            }
        } catch {
            throw ExportError("cannot read the stored track back: \(error)")
        }
    }

    /// Tracks this long are read on a second thread (`prefetchedPoints`).
    static let prefetchThreshold = 20_000
    static let prefetchBatch = 4096

    /// The points, made on a second thread (the stored trace decoded, replayed again in
    /// `replayed` mode) in batches while this thread hands them to `body` (a writer formatting
    /// them): the two halves of an export's pass then run on two cores. At most four batches wait,
    /// so memory stays flat; the order is the trace's.
    private func prefetchedPoints(_ body: (TrackPoint) -> Void) throws {
        let channel = BatchChannel<TrackPoint>(capacity: 4)
        let track = self
        let producer = BackgroundWork { () -> (any Error)? in
            var batch: [TrackPoint] = []
            batch.reserveCapacity(ExportTrack.prefetchBatch)
            defer { channel.close() }
            do {
                try track.visitPoints { point in
                    batch.append(point)
                    if batch.count == ExportTrack.prefetchBatch {
                        channel.send(batch)
                        batch = []
                        batch.reserveCapacity(ExportTrack.prefetchBatch)
                    }
                }
                channel.send(batch)
                return nil
            } catch {
                return error
            }
        }
        while let batch = channel.receive() {
            for point in batch { body(point) }
        }
        if let error = producer.take() { throw error }
    }

    private func visitPoints(_ body: (TrackPoint) -> Void) throws {
        switch source {
        case .recorded(let trace):
            let raw = mode == .raw
            try trace.forEachFix { f in
                let decision = f.decision.decision
                body(TrackPoint(time: f.fix.time, latitude: raw ? f.fix.latitude : f.decision.latitude,
                                longitude: raw ? f.fix.longitude : f.decision.longitude, altitude: f.fix.altitude,
                                accuracy: f.fix.accuracy, speed: f.fix.speed, heading: f.fix.heading, uuid: redacted(f.fix.statedUUID),
                                odometer: f.fix.recordedOdometer, isMoving: f.fix.isMoving, decision: decision, reason: f.reason,
                                onTrack: raw || decision != .rejected))
            }
        case .replayed(let trace, let config, _, _):
            try StreamedReplay.forEachDecision(trace, config: config) { fix, d in
                let decision = d.decision
                body(TrackPoint(time: fix.time, latitude: d.latitude, longitude: d.longitude, altitude: fix.altitude,
                                accuracy: fix.accuracy, speed: fix.speed, heading: fix.heading,
                                uuid: fix.uuid.isEmpty ? nil : redacted(fix.uuid), odometer: d.odometer,
                                recordedOdometer: fix.recordedOdometer, isMoving: fix.isMoving, decision: decision,
                                reason: d.reason?.rawValue, onTrack: decision != .rejected))
            }
        }
    }
}
