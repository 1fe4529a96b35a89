import BGeoReader

/// `export`: reads a dump's track once (`ExportTrack`) and writes it as GeoJSON, KML or GPX.
public enum ExportFile {
    public struct Result: Sendable {
        public var summary: ExportSummary
        /// Things the user should know (e.g. how the replayed track was obtained).
        public var notes: [String]
    }

    /// `write` to the file at `path` (`-`: standard output), through `OutputFile` with the dump as evidence.
    public static func write(dump: Dump, to path: String, options: ExportOptions, redactor: Redactor = .disabled,
                             progress: StageProgress = .silent) throws -> Result {
        try write(dump: dump, to: try OutputFile(path, protecting: EvidenceSet(inputs: [dump.path])), options: options,
                  redactor: redactor, progress: progress)
    }

    /// Dump text written into the file (uuids, geofence identifiers) goes through `redactor`.
    public static func write(dump: Dump, to output: OutputFile, options: ExportOptions, redactor: Redactor = .disabled,
                             progress: StageProgress = .silent) throws -> Result {
        try write(dump: dump, to: output, options: options, learning: SecretsAndConfig(dump, resolved: redactor), progress: progress)
    }

    /// `write`, with a redactor still being learned while the track is read (`SecretsAndConfig`,
    /// which also gives a replayed track its recorded configuration).
    package static func write(dump: Dump, to output: OutputFile, options: ExportOptions, learning: SecretsAndConfig,
                              progress: StageProgress = .silent) throws -> Result {
        defer { progress.finish() }
        let track = try ExportTrack.read(dump, mode: options.mode, overrides: options.overrides, learning: learning,
                                         progress: progress)
        progress.stage("writing the \(options.format.rawValue) to \(output.isStandardOutput ? "standard output" : output.path)")
        let title = "BGeo dump \(dump.displayName), \(options.mode.rawValue) track"
        let summary = try output.write { path in try write(track, format: options, title: title, name: dump.displayName, to: path) }
        return Result(summary: summary, notes: track.notes)
    }

    /// The track in `options.format`, written to `path`.
    private static func write(_ track: ExportTrack, format options: ExportOptions, title: String, name: String,
                              to path: String) throws -> ExportSummary {
        let summary: ExportSummary
        switch options.format {
        case .gpx:
            let export = GPXExport(name: name, description: title, generatedAt: options.generatedAt,
                                   gapSeconds: options.gapSeconds)
            let gpx = try export.write(track: track, to: path)
            var counts = ExportSummary()
            counts.segments = gpx.segments
            counts.lines = gpx.segments
            counts.linePoints = gpx.points
            counts.geofences = gpx.waypoints
            summary = counts
        case .geojson:
            let writer = try GeoJSONWriter(path: path, name: name, mode: options.mode)
            summary = try TrackFeatureExport(gapSeconds: options.gapSeconds, includesFixes: options.includesFixes)
                .write(track, to: writer)
        case .kml:
            let writer = try KMLWriter(path: path, name: name, description: title + " (\(ToolInfo.name) \(ToolInfo.version))",
                                       mode: options.mode)
            summary = try TrackFeatureExport(gapSeconds: options.gapSeconds, includesFixes: options.includesFixes)
                .write(track, to: writer)
        }
        return summary
    }
}
