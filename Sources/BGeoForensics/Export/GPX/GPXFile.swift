import BGeoReader
import Foundation

/// `gpx`: reads the track from a dump (recorded, replayed or raw) and writes it.
public enum GPXFile {
    public struct Result: Sendable {
        public var summary: GPXExportSummary
        /// Things the user should know (e.g. how the replayed track was obtained).
        public var notes: [String]
    }

    /// `write` to the file at `path` (`-`: standard output), through `OutputFile` with the dump as evidence.
    public static func write(dump: Dump, to path: String, mode: TrackMode, overrides: [String] = [],
                             gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?,
                             redactor: Redactor = .disabled, progress: StageProgress = .silent) throws -> Result {
        try write(dump: dump, to: try OutputFile(path, protecting: EvidenceSet(inputs: [dump.path])), mode: mode, overrides: overrides,
                  gapSeconds: gapSeconds, generatedAt: generatedAt, redactor: redactor, progress: progress)
    }

    /// Dump text written into the file (uuids, geofence identifiers) goes through `redactor`.
    public static func write(dump: Dump, to output: OutputFile, mode: TrackMode, overrides: [String] = [],
                             gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?,
                             redactor: Redactor = .disabled, progress: StageProgress = .silent) throws -> Result {
        try write(dump: dump, to: output, mode: mode, overrides: overrides, gapSeconds: gapSeconds, generatedAt: generatedAt,
                  learning: SecretsAndConfig(dump, resolved: redactor), progress: progress)
    }

    /// `write`, with a redactor still being learned while the track is read (`SecretsAndConfig`,
    /// which also gives a replayed track its recorded configuration).
    package static func write(dump: Dump, to output: OutputFile, mode: TrackMode, overrides: [String] = [],
                              gapSeconds: Double = GPXExport.defaultGapSeconds, generatedAt: Double?,
                              learning: SecretsAndConfig, progress: StageProgress = .silent) throws -> Result {
        defer { progress.finish() }
        // A replayed track is replayed once, as it is written (its bounds gathered on the way).
        let track = try ExportTrack.read(dump, mode: mode, overrides: overrides, learning: learning,
                                         countingFirst: false, progress: progress)
        let shown = output.isStandardOutput ? "standard output" : output.path
        progress.stage(track.boundsKnown ? "writing the GPX to \(shown)" : "replaying \(track.fixCount) fixes into the GPX at \(shown)")
        let export = GPXExport(name: dump.displayName, description: "BGeo dump \(dump.displayName), \(mode.rawValue) track",
                               generatedAt: generatedAt, gapSeconds: gapSeconds)
        // Scratch files only for a track whose bounds the writing pass gathers.
        let scratch = track.boundsKnown ? nil
            : (body: dump.workFiles.newFile("gpx-body", extension: "tape"), header: dump.workFiles.newFile("gpx-header", extension: "tape"))
        defer {
            if let scratch {
                unlink(scratch.body)
                unlink(scratch.header)
            }
        }
        let pass = try output.write { path in try export.pass(track: track, to: path, scratch: scratch) }
        let notes = track.boundsKnown ? track.notes
            : track.replayNote(accepted: pass.accepted, adjusted: pass.adjusted, rejected: pass.rejected).map { [$0] } ?? []
        return Result(summary: pass.summary, notes: notes)
    }
}
