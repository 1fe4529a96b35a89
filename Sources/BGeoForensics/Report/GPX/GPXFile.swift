/// `gpx`: reads the trace from a dump, picks the track (recorded, replayed or raw) and writes it.
public enum GPXFile {
    public struct Result: Sendable {
        public var summary: GPXExportSummary
        /// Things the user should know (e.g. how the replayed track was obtained).
        public var notes: [String]
    }

    public static func write(dump: Dump, to path: String, mode: GPXTrackMode, overrides: [String] = [],
                             gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?) throws -> Result {
        let trace = RecordedTraceReader.read(dump)
        var notes: [String] = []
        let points: [GPXTrackPoint]
        switch mode {
        case .recorded, .raw:
            points = GPXExport.points(from: trace, mode: mode)
        case .replayed:
            let replayed = try ReplayTrack.points(dump: dump, recorded: trace, overrides: overrides)
            points = replayed.points
            notes += replayed.notes
        }
        let export = GPXExport(name: dump.displayName, description: "BGeo dump \(dump.displayName), \(mode.rawValue) track",
                               generatedAt: generatedAt, gapSeconds: gapSeconds, mode: mode)
        let summary = try export.write(points: points, geofences: trace.geofences, to: path)
        return Result(summary: summary, notes: notes)
    }
}
