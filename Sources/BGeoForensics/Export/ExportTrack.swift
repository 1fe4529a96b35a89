/// The trace of a dump as the exports (GPX, GeoJSON, KML) read it: every fix in time order as a
/// `TrackPoint`, in the chosen mode, and the geofence events. This is the one place exports touch
/// the trace types: `recorded` and `raw` come from the dump alone (`RecordedTraceReader`),
/// `replayed` from a replay of the complete trace (`TraceBuilder`, `ReplayEngine`) under the dump's
/// config plus `--set` overrides. Points are made one at a time as they are visited: no copy of the
/// track is built for writing.
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
        case recorded(ReportTrace)
        case replayed(ReplayResult)
    }

    /// Reads the track of `dump` in `mode`. Overrides apply to `replayed` only; a bad one throws
    /// before anything is read.
    public static func read(_ dump: Dump, mode: TrackMode, overrides: [String] = [], redactor: Redactor = .disabled,
                            progress: StageProgress = .silent) throws(UsageError) -> ExportTrack {
        progress.stage("reading the \(mode.rawValue) track")
        switch mode {
        case .recorded, .raw:
            let trace = RecordedTraceReader.read(dump)
            return ExportTrack(mode: mode, geofences: redacted(trace.geofences, redactor), notes: [], source: .recorded(trace),
                               redactor: redactor)
        case .replayed:
            var configuration = ReplayConfiguration.recorded(from: dump)
            for text in overrides { try configuration.apply(set: text) }
            let trace = TraceBuilder.completeTrace(dump: dump)
            progress.stage("replaying \(trace.fixes.count) fixes")
            let result = ReplayEngine.run(trace: trace, config: configuration.filter, source: configuration.sourceDescription,
                                          notes: configuration.notes, isWhatIf: !configuration.overrides.isEmpty)
            let note = "replayed with \(configuration.sourceDescription): \(result.accepted) accepted, \(result.adjusted) adjusted, \(result.rejected) rejected"
            let geofences = trace.geofences.map(ReportGeofence.init(record:)).sorted { $0.time < $1.time }
            return ExportTrack(mode: mode, geofences: redacted(geofences, redactor), notes: [note], source: .replayed(result),
                               redactor: redactor)
        }
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
        case .recorded(let trace): return trace.fixes.count
        case .replayed(let result): return result.fixes.count
        }
    }

    /// Visits every fix in time order (the ones off the track line too: see `TrackPoint.onTrack`).
    public func forEachPoint(_ body: (TrackPoint) -> Void) {
        switch source {
        case .recorded(let trace):
            let raw = mode == .raw
            // Indexing reads each fix in place (no copy of the array, no retain per element).
            for i in trace.fixes.indices {
                let f = trace.fixes[i]
                body(TrackPoint(time: f.time, latitude: raw ? f.latitude : f.outputLatitude,
                                longitude: raw ? f.longitude : f.outputLongitude, altitude: f.altitude, accuracy: f.accuracy,
                                speed: f.speed, heading: f.heading, uuid: redacted(f.uuid), odometer: f.odometer, isMoving: f.isMoving,
                                decision: f.decision, reason: f.reason, onTrack: raw || f.decision != .rejected))
            }
        case .replayed(let result):
            for i in result.decisions.indices {
                let d = result.decisions[i]
                let decision: ReportDecision
                switch d.decision {
                case .accepted: decision = .accepted
                case .adjusted: decision = .adjusted
                case .rejected: decision = .rejected
                }
                let fix = result.fixes[i]
                body(TrackPoint(time: fix.time, latitude: d.latitude, longitude: d.longitude, altitude: fix.altitude,
                                accuracy: fix.accuracy, speed: fix.speed, heading: fix.heading,
                                uuid: fix.uuid.isEmpty ? nil : redacted(fix.uuid), odometer: d.odometer,
                                recordedOdometer: fix.recordedOdometer, isMoving: fix.isMoving, decision: decision,
                                reason: d.reason?.rawValue, onTrack: decision != .rejected))
            }
        }
    }
}
