/// `gpx`: reads the track from a dump (recorded, replayed or raw) and writes it.
public enum GPXFile {
    public struct Result: Sendable {
        public var summary: GPXExportSummary
        /// Things the user should know (e.g. how the replayed track was obtained).
        public var notes: [String]
    }

    /// Dump text written into the file (uuids, geofence identifiers) goes through `redactor`.
    public static func write(dump: Dump, to path: String, mode: TrackMode, overrides: [String] = [],
                             gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?,
                             redactor: Redactor = .disabled, progress: StageProgress = .silent) throws -> Result {
        try write(dump: dump, to: path, mode: mode, overrides: overrides, gapSeconds: gapSeconds, generatedAt: generatedAt,
                  pendingRedactor: PendingRedactor(dump, resolved: redactor), progress: progress)
    }

    /// `write`, with a redactor still being learned (`PendingRedactor`) while the track is read.
    public static func write(dump: Dump, to path: String, mode: TrackMode, overrides: [String] = [],
                             gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?,
                             pendingRedactor: PendingRedactor, progress: StageProgress = .silent) throws -> Result {
        defer { progress.finish() }
        let track = try ExportTrack.read(dump, mode: mode, overrides: overrides, pendingRedactor: pendingRedactor, progress: progress)
        progress.stage("writing the GPX to \(path)")
        let export = GPXExport(name: dump.displayName, description: "BGeo dump \(dump.displayName), \(mode.rawValue) track",
                               generatedAt: generatedAt, gapSeconds: gapSeconds)
        let summary = try export.write(track: track, to: path)
        return Result(summary: summary, notes: track.notes)
    }
}
