/// `gpx`: reads the trace from a dump, picks the track (recorded, replayed or raw) and writes it.
public enum GPXFile {
    public struct Result: Sendable {
        public var summary: GPXExportSummary
        /// Things the user should know (e.g. how the replayed track was obtained).
        public var notes: [String]
    }

    public static func write(dump: Dump, to path: String, mode: GPXTrackMode, overrides: [String] = [],
                             gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?) throws -> Result {
        var clock = StageClock()
        var notes: [String] = []
        let points: [GPXTrackPoint]
        let geofences: [ReportGeofence]
        switch mode {
        case .recorded, .raw:
            let trace = RecordedTraceReader.read(dump)
            points = GPXExport.points(from: trace, mode: mode)
            geofences = trace.geofences
        case .replayed:
            let trace = TraceBuilder.completeTrace(dump: dump)
            clock.lap("complete trace")
            let replayed = try ReplayTrack.points(dump: dump, trace: trace, overrides: overrides)
            points = replayed.points
            notes += replayed.notes
            geofences = trace.geofences.map(ReportGeofence.init(record:)).sorted { $0.time < $1.time }
        }
        clock.lap("points")
        let export = GPXExport(name: dump.displayName, description: "BGeo dump \(dump.displayName), \(mode.rawValue) track",
                               generatedAt: generatedAt, gapSeconds: gapSeconds, mode: mode)
        let summary = try export.write(points: points, geofences: geofences, to: path)
        clock.lap("write")
        return Result(summary: summary, notes: notes)
    }
}
