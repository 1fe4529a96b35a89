import BGeoForensics
import Foundation

/// `gpx DUMP [-o FILE.gpx]`: the trace as GPX 1.1.
enum GPXCommand: CLICommand {
    static let spec = CommandSpec(
        name: "gpx",
        abstract: "Write the trace as GPX 1.1.",
        discussion: """
            One track, split into a new <trkseg> wherever fixes are more than --gap apart; geofence
            events as <wpt>; accuracy, speed, heading and uuid under <extensions> (namespace
            \(GPXWriter.extensionNamespace)). Valid against the GPX 1.1 schema.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump.")],
        options: [
            OptionSpec("--output", short: "-o", value: "FILE", help: "Output file (default: standard output)."),
            OptionSpec("--track", value: "MODE",
                       help: "replayed (default: a replay with the dump's config) | recorded (as the engine stored them) | raw (every fix, rejected included)."),
            OptionSpec("--set", value: "KEY=VALUE", repeatable: true, help: "Override a config key for --track replayed."),
            OptionSpec("--gap", value: "DURATION", help: "Start a new segment after a gap this long, with a unit: 90s, 15m, 2h (default 15m)."),
            OptionSpec("--generated-at", value: "TIME", help: "metadata time (default now, or $BGEO_REPORT_GENERATED_AT / $SOURCE_DATE_EPOCH)."),
            OptionSpec("--json", help: "Print counts as JSON (needs -o)."),
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let mode = TrackMode(rawValue: try arguments.choice("--track", TrackMode.allCases.map(\.rawValue)) ?? "replayed")!
        let overrides = arguments.all("--set")
        if !overrides.isEmpty, mode != .replayed { throw UsageError(message: "--set only applies to --track replayed") }
        let output = arguments.value("--output") ?? "-"
        if arguments.flag("--json"), output == "-" { throw UsageError(message: "--json needs -o FILE (the GPX goes to stdout otherwise)") }
        let gap = try arguments.duration("--gap", positive: true) ?? GPXExport.defaultGapSeconds
        let generatedAt = ReportFile.generationTime(option: try arguments.time("--generated-at"))
        let target = try CommandSupport.outputFile(output, reading: [arguments.positionals[0]])
        // The output states no input hash: the dump is copied but not hashed.
        let dump = try CommandSupport.openDump(arguments, hashing: .none)
        let result = try GPXFile.write(dump: dump, to: target, mode: mode, overrides: overrides, gapSeconds: gap, generatedAt: generatedAt,
                                       learning: SecretsAndConfig(dump, showSecrets: arguments.flag("--show-secrets"),
                                                                  configurationWanted: mode == .replayed),
                                       progress: StageProgress(label: "gpx"))
        for note in result.notes { CommandSupport.stderr.line("note: \(note)") }
        if arguments.flag("--json") {
            CommandSupport.printJSON(["output": .string(output), "track": .string(mode.rawValue), "points": .int(Int64(result.summary.points)),
                                      "segments": .int(Int64(result.summary.segments)), "waypoints": .int(Int64(result.summary.waypoints))])
        } else if output != "-" {
            CommandSupport.stderr.line("wrote \(output): \(result.summary.points) points in \(result.summary.segments) segment\(result.summary.segments == 1 ? "" : "s"), \(result.summary.waypoints) waypoint\(result.summary.waypoints == 1 ? "" : "s")")
        }
        CommandSupport.reportWarnings(dump)
        CommandSupport.stderr.flush()
        return 0
    }
}
