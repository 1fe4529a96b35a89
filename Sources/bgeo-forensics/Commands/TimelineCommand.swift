import BGeoForensics

/// `timeline DUMP`: upload, backoff and token-refresh history, tracking gaps, and a diagnosis
/// checked against the engine's documented upload policy.
enum TimelineCommand: CLICommand {
    static let spec = CommandSpec(
        name: "timeline",
        abstract: "Reconstruct upload, backoff and token-refresh history and diagnose it.",
        discussion: """
            Reads the log oldest first and the queue, pairs every http.request with its response,
            refresh and backoff, checks each step against the SDK's upload policy, finds tracking
            gaps, and lists findings (queue.stranded, auth.refresh_failing, auth.no_refresh,
            poison.dropped, policy.violation, queue.attempts, queue.pruned, sync.deferred, tracking.gap,
            clock.stepped) with the
            log rows and uuids they rest on, who is to blame (the app's config, the server, the engine,
            the device, or nobody) and what to do. Secrets are redacted unless --show-secrets.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db dump (its -wal beside it is read too).")],
        options: [
            CommandSupport.sinceOption("history"),
            CommandSupport.untilOption("history"),
            OptionSpec("--findings-only", help: "Only the findings."),
            OptionSpec("--all-gaps", help: "List every tracking gap with its context (default: expected stationary gaps share one line)."),
            OptionSpec("--policy", value: "ENGINE", help: "bgeo | longping: the policy to check against; it must be the dump's own engine's (default: the dump's format)."),
            OptionSpec("--gap", value: "DURATION", help: "Silence between fixes that counts as a tracking gap, with a unit: 90s, 15m, 2h (default 15m)."),
            CommandSupport.jsonOption,
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        var options = TimelineOptions()
        (options.since, options.until) = try arguments.timeWindow()
        if let engine = try arguments.choice("--policy", UploadPolicy.Engine.allCases.map(\.rawValue)) {
            options.policy = UploadPolicy.named(UploadPolicy.Engine(rawValue: engine) ?? .bgeo)
        }
        if let gap = try arguments.duration("--gap", positive: true) { options.gapThreshold = gap }
        let findingsOnly = arguments.flag("--findings-only")
        let dump = try CommandSupport.openDump(arguments, announceSanitized: false)
        if let misfit = options.policy?.misfit(dump.layout.format, dumpName: TerminalText.prose(dump.displayName)) {
            throw UsageError(message: misfit, command: "timeline")
        }
        // The secrets are learned on a second connection while the queue is read.
        let redactor = PendingRedactor(dump, enabled: !arguments.flag("--show-secrets"))
        let progress = StageProgress(label: "timeline")
        progress.stage("reading the queue and the log")
        let timeline = TimelineBuilder(dump: dump, options: options, pendingRedactor: redactor).build()
        progress.finish()
        if arguments.flag("--json") {
            CommandSupport.printJSON(timeline.json(findingsOnly: findingsOnly))
        } else {
            let output = CommandSupport.stdout
            let renderer = TimelineTextRenderer(colour: output.isTerminal, allGaps: arguments.flag("--all-gaps"))
            for line in renderer.lines(timeline, findingsOnly: findingsOnly) { output.line(line) }
            output.flush()
        }
        // Said on stderr too, so a window that misses the data is seen even when stdout is piped away.
        if let note = timeline.window?.emptyNote { CommandSupport.stderr.line("note: \(note).") }
        if !dump.layout.hasLog { CommandSupport.stderr.line("This dump has no log_entries table: the history comes from the queue only.") }
        CommandSupport.reportWarnings(dump)
        return 0
    }
}
