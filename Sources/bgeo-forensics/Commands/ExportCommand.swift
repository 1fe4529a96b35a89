import BGeoForensics
import Foundation

/// `export DUMP --format geojson|kml|gpx -o FILE`: the trace for GIS tools.
enum ExportCommand: CLICommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Write the trace as GeoJSON, KML or GPX for GIS tools.",
        discussion: """
            GeoJSON (RFC 7946): a FeatureCollection with the track as a LineString, or a
            MultiLineString split wherever fixes are --gap apart, one-fix segments as Points
            (kind isolated_fix), geofence events as Points; with --points one Point per fix
            (uuid, time, accuracy, speed, heading, altitude, odometer, is_moving, decision,
            reason). Positions are [longitude, latitude], at most 7 decimals.
            KML 2.2: a Document with a LineString Placemark per segment, with --points a
            Placemark per fix (TimeStamp, ExtendedData, a style for accepted / adjusted /
            rejected), geofence events as Placemarks.
            gpx: the same file as the gpx command. Written as it is read: a million fixes in
            bounded memory beyond the trace itself.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump.")],
        options: [
            OptionSpec("--format", value: "FORMAT", help: "geojson | kml | gpx (default: from the -o extension)."),
            OptionSpec("--output", short: "-o", value: "FILE", help: "Output file ('-' for standard output)."),
            OptionSpec("--track", value: "MODE",
                       help: "replayed (default: a replay with the dump's config) | recorded (as the engine stored them) | raw (every fix, rejected included)."),
            OptionSpec("--set", value: "KEY=VALUE", repeatable: true, help: "Override a config key for --track replayed."),
            OptionSpec("--gap", value: "DURATION", help: "Start a new segment after a gap this long (default 15m)."),
            OptionSpec("--points", help: "Also one feature per fix, with its properties and decision (GeoJSON, KML)."),
            OptionSpec("--generated-at", value: "TIME", help: "GPX metadata time (default now, or $BGEO_REPORT_GENERATED_AT / $SOURCE_DATE_EPOCH)."),
            OptionSpec("--json", help: "Print counts as JSON (needs -o FILE)."),
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let output = arguments.value("--output") else {
            throw UsageError(message: "export needs -o FILE (or -o - for standard output)")
        }
        let named = try arguments.choice("--format", ExportFormat.allCases.map(\.rawValue)).flatMap(ExportFormat.init(rawValue:))
        guard let format = named ?? ExportFormat.implied(by: output) else {
            throw UsageError(message: "--format geojson, kml or gpx is needed ('\(output)' does not say which)")
        }
        let mode = TrackMode(rawValue: try arguments.choice("--track", TrackMode.allCases.map(\.rawValue)) ?? "replayed")!
        let overrides = arguments.all("--set")
        if !overrides.isEmpty, mode != .replayed { throw UsageError(message: "--set only applies to --track replayed") }
        if arguments.flag("--points"), format == .gpx {
            throw UsageError(message: "--points applies to geojson and kml (a GPX track already lists every point; --track raw adds the rejected ones)")
        }
        if arguments.value("--generated-at") != nil, format != .gpx { throw UsageError(message: "--generated-at applies to gpx only") }
        if arguments.flag("--json"), output == "-" { throw UsageError(message: "--json needs -o FILE (the export goes to stdout otherwise)") }
        let gap = try arguments.duration("--gap", positive: true) ?? TrackSegmenter.defaultGapSeconds
        let generatedAt = format == .gpx ? ReportFile.generationTime(option: try arguments.time("--generated-at")) : nil
        let target = try CommandSupport.outputFile(output, reading: [arguments.positionals[0]])
        // The output states no input hash: the dump is copied but not hashed.
        let dump = try CommandSupport.openDump(arguments, hashing: .none)
        let options = ExportOptions(format: format, mode: mode, overrides: overrides, gapSeconds: gap,
                                    includesFixes: arguments.flag("--points"), generatedAt: generatedAt)
        let result = try ExportFile.write(dump: dump, to: target, options: options,
                                          learning: SecretsAndConfig(dump, showSecrets: arguments.flag("--show-secrets"),
                                                                     configurationWanted: mode == .replayed),
                                          progress: StageProgress(label: "export"))
        for note in result.notes { CommandSupport.stderr.line("note: \(note)") }
        let s = result.summary
        if arguments.flag("--json") {
            var object: JSONObject = ["output": .string(output), "format": .string(format.rawValue), "track": .string(mode.rawValue)]
            for member in s.json.objectValue ?? JSONObject() { object[member.key] = member.value }
            CommandSupport.printJSON(.object(object))
        } else if output != "-" {
            var parts = ["\(s.linePoints) track points in \(s.lines) line\(s.lines == 1 ? "" : "s")"]
            if s.isolatedFixes > 0 { parts.append("\(s.isolatedFixes) isolated fix\(s.isolatedFixes == 1 ? "" : "es")") }
            if arguments.flag("--points") { parts.append("\(s.fixes) fix point\(s.fixes == 1 ? "" : "s")") }
            parts.append("\(s.geofences) geofence event\(s.geofences == 1 ? "" : "s")")
            CommandSupport.stderr.line("wrote \(output) (\(format.rawValue)): " + parts.joined(separator: ", "))
        }
        CommandSupport.reportWarnings(dump)
        CommandSupport.stderr.flush()
        return 0
    }
}
