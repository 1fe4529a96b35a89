/// `gpx`: reads the trace from a dump, picks the track (recorded, replayed or raw) and writes it.
public enum GPXFile {
    public struct Result: Sendable {
        public var summary: GPXExportSummary
        /// Things the user should know (e.g. how the replayed track was obtained).
        public var notes: [String]
    }

    /// Dump text written into the file (uuids, geofence identifiers) goes through `redactor`.
    public static func write(dump: Dump, to path: String, mode: GPXTrackMode, overrides: [String] = [],
                             gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?,
                             redactor: Redactor = .disabled, progress: StageProgress = .silent) throws -> Result {
        defer { progress.finish() }
        progress.stage("reading the \(mode.rawValue) track")
        var notes: [String] = []
        var points: [GPXTrackPoint]
        var geofences: [ReportGeofence]
        switch mode {
        case .recorded, .raw:
            let trace = RecordedTraceReader.read(dump)
            points = GPXExport.points(from: trace, mode: mode)
            geofences = trace.geofences
        case .replayed:
            let trace = TraceBuilder.completeTrace(dump: dump)
            progress.stage("replaying \(trace.fixes.count) fixes")
            let replayed = try ReplayTrack.points(dump: dump, trace: trace, overrides: overrides)
            points = replayed.points
            notes += replayed.notes
            geofences = trace.geofences.map(ReportGeofence.init(record:)).sorted { $0.time < $1.time }
        }
        if redactor.enabled {
            for i in points.indices { points[i].uuid = points[i].uuid.map { redactor.redact(text: $0) } }
            for i in geofences.indices { geofences[i].identifier = redactor.redact(text: geofences[i].identifier) }
        }
        progress.stage("writing \(points.count) points to \(path)")
        let export = GPXExport(name: dump.displayName, description: "BGeo dump \(dump.displayName), \(mode.rawValue) track",
                               generatedAt: generatedAt, gapSeconds: gapSeconds, mode: mode)
        let summary = try export.write(points: points, geofences: geofences, to: path)
        return Result(summary: summary, notes: notes)
    }
}
