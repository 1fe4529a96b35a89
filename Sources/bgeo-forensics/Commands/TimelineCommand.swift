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
            gaps, and lists findings (\(Finding.codes.joined(separator: ", "))) with the
            log rows and uuids they rest on, who is to blame (the app's config, the server, the engine,
            the device, or nobody) and what to do. Secrets are redacted unless --show-secrets.

            --format timesketch writes JSON Lines that Timesketch imports as they are (save them as a
            .jsonl file): one event per log row in the window, upload attempt, token refresh, backoff,
            prune, drop, tracking gap and finding. Each line has message, datetime (ISO 8601 with its
            offset), timestamp (microseconds) and timestamp_desc ("Log row written", "Upload attempt",
            "Token refresh", "Backoff", "Prune", "Records dropped", "Gap start", "Finding"), and event,
            log_row_id, level, uuid, status, finding_code, severity, responsible and the dump's sha256
            (null where they do not apply). The log is streamed: memory stays flat on any dump.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db dump (its -wal beside it is read too).")],
        options: [
            CommandSupport.sinceOption("history"),
            CommandSupport.untilOption("history"),
            OptionSpec("--findings-only", help: "Only the findings."),
            OptionSpec("--all-gaps", help: "List every tracking gap with its context (default: expected stationary gaps share one line)."),
            OptionSpec("--policy", value: "ENGINE", help: "bgeo | longping: the policy to check against; it must be the dump's own engine's (default: the dump's format)."),
            OptionSpec("--gap", value: "DURATION", help: "Silence between fixes that counts as a tracking gap, with a unit: 90s, 15m, 2h (default 15m)."),
            OptionSpec("--format", value: "FORMAT", help: "text | json | timesketch | ticket (default text; --json is --format json)."),
            OptionSpec("--ticket", help: "A Markdown summary of at most 30 lines to paste into a ticket (--format ticket)."),
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
        let format = try outputFormat(arguments)
        let dump = try CommandSupport.openDump(arguments, announceSanitized: false, hashing: .yieldingToReads)
        if let misfit = options.policy?.misfit(dump.layout.format, dumpName: TerminalText.prose(dump.displayName)) {
            throw UsageError(message: misfit, command: "timeline")
        }
        // The secrets are learned on a second connection while the queue is read.
        let redactor = PendingRedactor(dump, enabled: !arguments.flag("--show-secrets"))
        let progress = StageProgress(label: "timeline")
        progress.stage("reading the queue and the log")
        let timeline = TimelineBuilder(dump: dump, options: options, pendingRedactor: redactor).build()
        progress.finish()
        switch format {
        case "json":
            let document = timeline.streamedJSON(findingsOnly: findingsOnly)
            try StreamedJSONDocument.write(document.tree, arrays: document.arrays, to: CommandSupport.stdout)
            CommandSupport.stdout.flush()
        case "timesketch":
            writeTimesketch(timeline, dump: dump, redactor: redactor.redactor, findingsOnly: findingsOnly)
        case "ticket":
            // The options that shaped this timeline, so the ticket's command reproduces it.
            var words: [String] = []
            for option in ["--since", "--until", "--policy", "--gap"] {
                if let value = arguments.value(option) { words += [option, value] }
            }
            let output = CommandSupport.stdout
            for line in TimelineTicketRenderer(reproduceArguments: words).lines(timeline) { output.line(line) }
            output.flush()
        default:
            let output = CommandSupport.stdout
            let renderer = TimelineTextRenderer(colour: output.usesColour, allGaps: arguments.flag("--all-gaps"))
            for line in renderer.lines(timeline, findingsOnly: findingsOnly) { output.line(line) }
            output.flush()
        }
        // Said on stderr too, so a window that misses the data is seen even when stdout is piped away.
        if let note = timeline.window?.emptyNote { CommandSupport.stderr.line("note: \(note).") }
        if !dump.layout.hasLog { CommandSupport.stderr.line("This dump has no log_entries table: the history comes from the queue only.") }
        CommandSupport.reportWarnings(dump)
        return 0
    }

    /// `--format`, with `--json` as its shorthand; the two together only when they agree.
    static func outputFormat(_ arguments: ParsedArguments) throws -> String {
        let named = try arguments.choice("--format", ["text", "json", "timesketch", "ticket"])
        if arguments.flag("--ticket") {
            if let named, named != "ticket" {
                throw UsageError(message: "--ticket and --format \(named) contradict each other (--ticket means --format ticket); give one")
            }
            if arguments.flag("--json") { throw UsageError(message: "--ticket and --json contradict each other; give one") }
            return "ticket"
        }
        if arguments.flag("--json") {
            if let named, named != "json" {
                throw UsageError(message: "--json and --format \(named) contradict each other (--json means --format json); give one")
            }
            return "json"
        }
        return named ?? "text"
    }

    /// The Timesketch lines on stdout, and on stderr what the file leaves out and why.
    static func writeTimesketch(_ timeline: Timeline, dump: Dump, redactor: Redactor, findingsOnly: Bool) {
        let progress = StageProgress(label: "timeline")
        progress.stage("writing the Timesketch lines")
        let writer = TimelineTimesketchWriter(timeline: timeline, dump: dump, redactor: redactor, findingsOnly: findingsOnly)
        let summary = writer.write(to: CommandSupport.stdout)
        progress.finish()
        let notes = CommandSupport.stderr
        if !findingsOnly, timeline.omittedAttempts > 0 || timeline.omittedGaps > 0 {
            notes.line("note: \(timeline.omittedAttempts) upload attempts and \(timeline.omittedGaps) gaps past the timeline's bounds are not in the file as such (every log row is).")
        }
        if summary.untimedFindings > 0 {
            notes.line("note: \(summary.untimedFindings) finding\(summary.untimedFindings == 1 ? "" : "s") with no time (none stated, nothing timed cited, no log row read) not in the file: see --json.")
        }
        if summary.notATime > 0 {
            notes.line("note: \(summary.notATime) event\(summary.notATime == 1 ? "" : "s") whose time is not a date (a broken number in the dump) not in the file.")
        }
        notes.flush()
    }
}
