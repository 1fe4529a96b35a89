/// `export`: reads a dump's track once (`ExportTrack`) and writes it as GeoJSON, KML or GPX.
public enum ExportFile {
    public struct Result: Sendable {
        public var summary: ExportSummary
        /// Things the user should know (e.g. how the replayed track was obtained).
        public var notes: [String]
    }

    /// Dump text written into the file (uuids, geofence identifiers) goes through `redactor`.
    public static func write(dump: Dump, to path: String, options: ExportOptions, redactor: Redactor = .disabled,
                             progress: StageProgress = .silent) throws -> Result {
        try write(dump: dump, to: path, options: options, pendingRedactor: PendingRedactor(dump, resolved: redactor), progress: progress)
    }

    /// `write`, with a redactor still being learned (`PendingRedactor`) while the track is read.
    public static func write(dump: Dump, to path: String, options: ExportOptions, pendingRedactor: PendingRedactor,
                             progress: StageProgress = .silent) throws -> Result {
        defer { progress.finish() }
        let track = try ExportTrack.read(dump, mode: options.mode, overrides: options.overrides, pendingRedactor: pendingRedactor,
                                         progress: progress)
        progress.stage("writing the \(options.format.rawValue) to \(path)")
        let title = "BGeo dump \(dump.displayName), \(options.mode.rawValue) track"
        let summary: ExportSummary
        switch options.format {
        case .gpx:
            let export = GPXExport(name: dump.displayName, description: title, generatedAt: options.generatedAt,
                                   gapSeconds: options.gapSeconds)
            let gpx = try export.write(track: track, to: path)
            var counts = ExportSummary()
            counts.segments = gpx.segments
            counts.lines = gpx.segments
            counts.linePoints = gpx.points
            counts.geofences = gpx.waypoints
            summary = counts
        case .geojson:
            let writer = try GeoJSONWriter(path: path, name: dump.displayName, mode: options.mode)
            summary = try TrackFeatureExport(gapSeconds: options.gapSeconds, includesFixes: options.includesFixes)
                .write(track, to: writer)
        case .kml:
            let writer = try KMLWriter(path: path, name: dump.displayName, description: title + " (\(ToolInfo.name) \(ToolInfo.version))",
                                       mode: options.mode)
            summary = try TrackFeatureExport(gapSeconds: options.gapSeconds, includesFixes: options.includesFixes)
                .write(track, to: writer)
        }
        return Result(summary: summary, notes: track.notes)
    }
}
