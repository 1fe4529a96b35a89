import BGeoForensics

/// `replay DUMP`: re-runs the complete trace through the SDK filter pipeline, under the recorded
/// config or a what-if one, and explains the odometer.
enum ReplayCommand: CLICommand {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "Re-run the fixes through the SDK filter pipeline (as recorded, or what-if).",
        discussion: """
            The trace is every queue location plus every `location` log line (deduplicated by uuid, raw_* positions \
            preferred) plus filter.reject / filter.adjust lines. By default it runs under the config the dump recorded \
            (state.config, else the last config log line, else engine defaults); --config and --set override it.
            Filter keys: disableLocationFilter, locationFilterMaxAccuracy, locationFilterMaxSpeed, \
            locationFilterPolicy (Conservative|Adjust|PassThrough), kalmanProfile (DEFAULT|AGGRESSIVE|CONSERVATIVE), \
            odometerAccuracyThreshold.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump.")],
        options: [
            OptionSpec("--set", value: "KEY=VALUE", repeatable: true,
                       help: "Override one filter key (SDK name, case-insensitive), e.g. locationFilterPolicy=Adjust."),
            OptionSpec("--config", value: "FILE.json", help: "Merge a JSON config object over the recorded config."),
            OptionSpec("--compare", help: "Run the recorded config and the what-if (--set/--config) side by side; list changed fixes."),
            OptionSpec("--fixes", help: "List every fix's decision."),
            OptionSpec("--top", value: "N", help: "How many top odometer contributors to show (default 10)."),
            CommandSupport.jsonOption,
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let top = try arguments.int("--top", range: 0...10_000) ?? 10
        let sets = arguments.all("--set")
        let configFile = arguments.value("--config")
        let compare = arguments.flag("--compare")
        if compare, sets.isEmpty, configFile == nil {
            throw UsageError(message: "--compare needs a what-if: give --set KEY=VALUE or --config FILE.json")
        }
        let dump = try CommandSupport.openDump(arguments, hashing: .yieldingToReads)
        let overrides = try ReplayOverrides(configFile: configFile, sets: sets)
        // Uuids, timestamps and config notes are dump text: redacted like every other output. The
        // secrets are learned by the trace's read of the log, and the recorded config with them
        // when that read serves both (`SecretsAndConfig`).
        let learning = SecretsAndConfig(dump, showSecrets: arguments.flag("--show-secrets"))

        let progress = StageProgress(label: "replay")
        progress.stage("reading the queue and the log")
        // The summary's replay follows the trace as it is assembled (its filter is known now).
        let live = compare ? nil : LiveSummary(filters: [overrides.applied(to: learning.startingConfiguration).filter], top: top)
        let trace: CompleteTrace
        do {
            trace = try TraceBuilder.storedTrace(dump: dump, following: live?.feed, secrets: learning.pendingRedactor)
        } catch {
            live?.cancel()
            throw error
        }
        let redactor = learning.redactor  // before any warning is read: it places its own
        let recorded = learning.configuration
        let whatIf = overrides.applied(to: recorded)
        let out = CommandSupport.stdout
        let json = arguments.flag("--json")
        let listFixes = arguments.flag("--fixes")
        var header: JSONObject = [
            "dump": .string(dump.path),
            "inputs": .array(dump.inputs.map { ["path": .string($0.path), "bytes": .int($0.bytes), "sha256": .string($0.sha256)] }),
            "geofenceEvents": .from(trace.geofenceCount),
        ]

        if compare {
            progress.stage("replaying \(trace.count) fixes under both configs")
            let comparison = try ReplayComparison(trace: trace, recorded: recorded, whatIf: whatIf, top: top)
            progress.finish()
            if json {
                try comparison.writeJSON(to: out, extra: header, after: ["warnings": StreamedJSONDocument.placeholder(0)],
                                         arrays: [dump.warnings.list().streamedArray(redactor)],
                                         includeDecisions: listFixes, top: top, redactor: redactor)
                out.flush()
            } else {
                try comparison.writeText(title: dump.displayName, top: top, listLimit: listFixes ? Int.max : 50, to: out,
                                         redactor: redactor)
                CommandSupport.reportWarnings(dump)
            }
            return 0
        }

        progress.stage("replaying \(trace.count) fixes")
        let summary = try (live.map { try $0.summarize(trace, [whatIf]) } ?? StreamedReplay.summarize(trace, [whatIf], top: top)).summaries[0]
        progress.finish()
        if json {
            // Warnings are known once the trace is read, so they can precede the streamed decisions.
            header["warnings"] = StreamedJSONDocument.placeholder(0)
            try StreamedReplay.writeJSON(summary, trace: trace, to: out, extra: header, arrays: [dump.warnings.list().streamedArray(redactor)],
                                         includeDecisions: listFixes, top: top, redactor: redactor)
            out.flush()
            return 0
        }
        out.write(redactor.redact(text: summary.text(title: dump.displayName, top: top)))
        let geofences = trace.geofenceCount
        if geofences > 0 {
            out.line("(\(geofences) geofence event\(geofences == 1 ? "" : "s") in the queue: events, not fixes — not replayed.)")
        }
        if listFixes {
            out.line("")
            out.line("Fixes")
            try StreamedReplay.writeTable(summary, trace: trace, to: out, redactor: redactor)
        }
        out.flush()
        CommandSupport.reportWarnings(dump)
        return 0
    }
}
