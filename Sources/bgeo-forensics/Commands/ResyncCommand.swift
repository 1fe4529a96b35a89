import BGeoForensics
import BGeoResync
import Foundation

/// `resync DUMP --url URL`: drains a working copy of a stranded queue to an endpoint with the
/// SDK's exact HTTP contract. The evidence is never written; everything happens in `--work`.
enum ResyncCommand: CLICommand {
    static let spec = CommandSpec(
        name: "resync",
        abstract: "Drain a copy of a stranded queue to an endpoint with the SDK's HTTP contract.",
        discussion: """
            The queue (and log rows) are copied into a working copy (--work, default ./<first 16 hex digits of the dump's SHA-256>.resync/) and \
            drained oldest first; re-running resumes it. Nothing is lost: a record leaves the working queue only \
            on a 2xx or as poison into the quarantine. Requests go only to the endpoints named on the command line \
            (printed before anything is sent); redirects are never followed. Exit 0 when the queue is empty, 3 when \
            records (or, with --logs, log rows) remain, 2 on bad input, 130 after Ctrl-C / SIGTERM.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump (never modified).")],
        options: [
            OptionSpec("--url", value: "URL", help: "Endpoint for location uploads (required: the dump's own url is never used unless --to-recorded-url)."),
            OptionSpec("--to-recorded-url",
                       help: "Send to the endpoints the dump recorded (url, logUrl, authorization.refreshUrl): the customer's own servers."),
            OptionSpec("--work", value: "DIR", help: "Working-copy folder (default ./<first 16 hex digits of the dump's SHA-256>.resync)."),
            OptionSpec("--set", value: "KEY=VALUE", repeatable: true,
                       help: "Override a config key; dotted paths, e.g. authorization.refreshUrl=https://…"),
            OptionSpec("--config", value: "FILE.json", help: "Merge a JSON config over the dump's recorded config."),
            OptionSpec("--policy", value: "POLICY", help: "bgeo | longping (default: the dump's engine)."),
            OptionSpec("--backoff-initial", value: "DURATION", help: "First backoff delay, with a unit: 1s, 0.5s (policy default 5s / 10s)."),
            OptionSpec("--backoff-max", value: "DURATION", help: "Backoff cap, with a unit: 60s, 5m (policy default 5m / 15m)."),
            OptionSpec("--max-attempts", value: "N", help: "Stop after N consecutive failed attempts (records stay queued)."),
            OptionSpec("--deadline", value: "DURATION", help: "Stop after DURATION (e.g. 90s, 15m); records stay queued."),
            OptionSpec("--logs", help: "Log lane: re-upload log_entries not yet uploaded to --log-url (the recorded logUrl only with --to-recorded-url)."),
            OptionSpec("--log-url", value: "URL", help: "Endpoint for the log lane (required for --logs unless --to-recorded-url)."),
            OptionSpec("--dry-run", help: "Print the first requests exactly as they would be sent; send nothing."),
            OptionSpec("--requests", value: "N", help: "How many requests --dry-run prints (default 3)."),
            OptionSpec("--quarantine", help: "List the working copy's quarantine and exit (sends nothing)."),
            OptionSpec("--export-quarantine", value: "FILE.ndjson", help: "Write the quarantine as NDJSON (after the run)."),
            CommandSupport.jsonOption,
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let stderr = CommandSupport.stderr
        let policyName = try arguments.choice("--policy", UploadPolicy.Engine.allCases.map(\.rawValue))
        // Durations take a unit, as every duration option does (--deadline, --gap).
        let backoffInitial = try arguments.duration("--backoff-initial")
        let backoffMax = try arguments.duration("--backoff-max")
        let maxAttempts = try arguments.int("--max-attempts", range: 1...Int.max)
        let deadline = try arguments.duration("--deadline")
        let dryRunCount = try arguments.int("--requests", range: 1...10_000) ?? 3
        let logLane = arguments.flag("--logs")
        for option in ["--url", "--log-url"] {
            if let text = arguments.value(option), !SDKConfigSchema.isHTTPURL(text) {
                throw UsageError(message: "\(option) takes an http:// or https:// URL, not '\(text)'")
            }
        }

        // The dump's private copy lives inside the working folder (issue 10): whatever ends this
        // process, no copy of the dump or its secrets is left outside --work.
        let work = try ResyncSetup.prepareWorkFolder(dump: arguments.positionals[0], work: arguments.value("--work"))
        let dump: Dump
        do { dump = try Dump(path: arguments.positionals[0], privateParent: work.path) } catch {
            if work.created { _ = rmdir(work.path) }
            throw error
        }
        defer {
            dump.removePrivateCopy()
            if work.created { _ = rmdir(work.path) }  // only if nothing else was put there (dry run, errors)
        }
        CommandSupport.announceSanitization(of: dump)
        var redactor = dump.makeRedactor(enabled: !arguments.flag("--show-secrets"))
        // What the dump alone lets a redactor know (even under --show-secrets): secrets beyond it
        // (given on the command line, issued by a refresh) are kept in the working copy.
        let dumpRedactor = redactor.enabled ? redactor : dump.makeRedactor(enabled: true)
        let sets = arguments.all("--set")
        let settings: ResyncSettings
        let named: SDKConfig
        let workDir = work.path
        let workPath = workDir + "/work.db"
        // What an earlier run on this working copy was told (endpoints, --to-recorded-url) counts
        // as told again, key by key, unless this command line names it anew.
        var toRecorded = arguments.flag("--to-recorded-url")
        do {
            var configs = try ResyncSetup.effectiveConfig(recorded: dump.recordedConfig().config,
                                                          configFile: arguments.value("--config"), sets: sets,
                                                          url: arguments.value("--url"), logURL: arguments.value("--log-url"))
            let used = WorkingCopy.rememberedTargets(atPath: workPath)?.fill(&configs, toRecordedURL: &toRecorded) ?? []
            redactor.learnSecrets(in: .object(configs.effective.object))
            if !used.isEmpty {
                stderr.line("note: using what the working copy \(workPath) remembers from an earlier run: "
                            + redactor.redact(text: used.joined(separator: ", ")) + " (name them again to change them)")
            }
            settings = try ResyncSettings(config: configs.effective)
            named = configs.named
        } catch {
            return refuse(error.description)
        }

        // Checked before anything is sent: the export must never land on the dump or the working copy.
        let quarantineExport = try arguments.value("--export-quarantine").map {
            try CommandSupport.outputFile($0, reading: [arguments.positionals[0], workPath])
        }

        if arguments.flag("--quarantine") {
            guard FileManager.default.fileExists(atPath: workPath) else {
                return refuse("no working copy at \(workPath) yet (nothing was re-synced, so nothing is quarantined).")
            }
            guard let lock = lockWorkingCopy(workDir) else { return 2 }
            defer { withExtendedLifetime(lock) {} }
            guard let wc = try openWorkingCopy(workPath, dump: dump) else { return 2 }
            try wc.learnSecrets(into: &redactor)
            return try listQuarantine(wc, arguments: arguments, export: quarantineExport, redactor: redactor)
        }

        // Before anything can be sent: where to (never guessed), and headers that can go on the wire.
        // A dry run sends nothing, so it refuses nothing: it shows what a real run would refuse.
        let plan = ResyncTargets.plan(settings: settings, named: named, toRecorded: toRecorded,
                                      logLane: logLane)
        if arguments.flag("--dry-run") {
            var refusals = plan.refusals
            if let problem = settings.headerProblem { refusals.append(problem) }
            return try dryRun(arguments, dump: dump, settings: settings, plan: plan, refusals: refusals, sets: sets,
                              workDir: workDir, workPath: workPath, redactor: &redactor, count: dryRunCount, logLane: logLane)
        }
        let targets: ResyncTargets
        do {
            targets = try ResyncTargets.decide(settings: settings, named: named, toRecorded: toRecorded,
                                               logLane: logLane)
        } catch {
            return usage(error.description)
        }
        if let problem = settings.headerProblem { return refuse(problem + "; nothing was sent") }

        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // One run per working copy, decided before the copy is even looked for: two runs that
        // create the same folder at once meet here, and only one goes on.
        guard let lock = lockWorkingCopy(workDir) else { return 2 }
        defer { withExtendedLifetime(lock) {} }
        if !FileManager.default.fileExists(atPath: workPath) { stderr.line("Creating working copy \(workPath) …"); stderr.flush() }
        guard let wc = try openWorkingCopy(workPath, dump: dump, warn: { stderr.line("warning: \($0)") }) else { return 2 }
        try wc.learnSecrets(into: &redactor)
        let tokens = ResyncSetup.initialTokens(settings: settings, explicit: ResyncSetup.explicitTokens(sets: sets),
                                               stored: try wc.storedTokens(), stateAuth: dump.engineState().auth)
        if let problem = tokenProblem(tokens, settings: settings) { return refuse(problem) }
        try wc.remember(targets: RememberedTargets(named: named, toRecordedURL: toRecorded))
        var policy = UploadPolicy.named(policyName.flatMap(UploadPolicy.Engine.init(rawValue:))
                                        ?? (dump.layout.format == .longping ? .longping : .bgeo))
        policy.backoff = policy.backoff.scaled(initial: backoffInitial, cap: backoffMax)
        let options = ResyncOptions(policy: policy, maxAttempts: maxAttempts, deadline: deadline, url: targets.url,
                                    logURL: logLane ? targets.url : nil)
        stderr.line(targets.sentence(redactor: redactor))
        stderr.flush()
        let interrupt = InterruptSignal.shared
        interrupt.install()
        let progress = ProgressRenderer(output: stderr, quiet: false)
        let engine = ResyncEngine(workingCopy: wc, settings: settings, tokens: tokens, options: options,
                                  transport: HTTPClient(timeout: settings.timeout, interrupt: interrupt), redactor: redactor,
                                  dumpRedactor: dumpRedactor, interrupt: interrupt, onEvent: { progress.handle($0) })
        // Secrets given on this command line are remembered by the copy before anything is sent.
        try wc.rememberSecrets(of: engine.redactor, beyond: dumpRedactor)
        let started = Date()
        var refusal: String?
        do {
            if logLane { try engine.drainLogs() } else { try engine.drainLocations() }
        } catch let stop as ResyncRefusal {
            refusal = stop.description
        }
        progress.finish()
        let unchanged = (try? EvidenceCopy.sha256(ofFile: dump.path)) == dump.inputs.first?.sha256
        var summary = ResyncSummary(
            workingCopy: workPath, logLane: logLane, dumpSHA256: dump.inputs.first?.sha256 ?? "", policy: policy.engine.rawValue,
            delivered: engine.delivered, deliveredTotal: try wc.deliveredTotal(),
            quarantinedThisRun: engine.quarantinedThisRun, quarantined: try wc.quarantined(),
            remaining: wc.remaining, logsUploaded: engine.logsUploaded, logsPending: wc.pendingLogs,
            requests: engine.requests, refreshes: engine.refreshes, failedRefreshes: engine.failedRefreshes,
            seconds: Date().timeIntervalSince(started), stopReason: engine.stopReason, tokens: engine.tokens,
            evidenceUnchanged: unchanged)
        summary.drainSeconds = engine.drainSeconds
        summary.targets = targets
        summary.lastFailure = engine.lastFailure
        summary.lastStatus = engine.lastStatus
        summary.interruptedBy = engine.interruptedBy.map(InterruptSignal.name)
        summary.resumeWords = resumeWords(workDir: workDir, arguments: arguments)
        let finalRedactor = engine.redactor
        if refusal == nil, let quarantineExport { try exportQuarantine(wc, to: quarantineExport, redactor: finalRedactor) }
        if arguments.flag("--json") {
            CommandSupport.printJSON(summary.json(redactor: finalRedactor))
        } else {
            CommandSupport.stdout.write(summary.text(redactor: finalRedactor))
        }
        CommandSupport.stdout.flush()
        CommandSupport.reportWarnings(dump)
        if let refusal { return refuse(refusal) }
        return summary.exitCode
    }

    /// `--dry-run`: nothing is sent, so nothing is refused. It prints what a real run would refuse
    /// (each with the flag that fixes it) and the first requests as they would be sent.
    static func dryRun(_ arguments: ParsedArguments, dump: Dump, settings: ResyncSettings, plan: ResyncTargets.Plan,
                       refusals: [String], sets: [String], workDir: String, workPath: String, redactor: inout Redactor,
                       count dryRunCount: Int, logLane: Bool) throws -> Int32 {
        let stderr = CommandSupport.stderr
        let hasWorkingCopy = FileManager.default.fileExists(atPath: workPath)
        let lock = hasWorkingCopy ? lockWorkingCopy(workDir) : nil
        if hasWorkingCopy && lock == nil { return 2 }
        defer { withExtendedLifetime(lock) {} }
        let wc: WorkingCopy?
        if hasWorkingCopy { wc = try openWorkingCopy(workPath, dump: dump) } else {
            wc = try WorkingCopy(path: ":memory:", dump: dump) { stderr.line("warning: \($0)") }
        }
        guard let wc else { return 2 }
        try wc.learnSecrets(into: &redactor)
        let tokens = ResyncSetup.initialTokens(settings: settings, explicit: ResyncSetup.explicitTokens(sets: sets),
                                               stored: try wc.storedTokens(), stateAuth: dump.engineState().auth)
        for token in [tokens.accessToken, tokens.refreshToken].compactMap({ $0 }) { redactor.learn(secret: token) }
        var refusals = refusals
        if let problem = tokenProblem(tokens, settings: settings) { refusals.append(problem) }
        // Without any endpoint the requests are shown against a placeholder, said as such.
        let url = plan.targets?.url ?? "https://URL.invalid/"
        let requests = try ResyncDryRun.requests(wc, settings: settings, tokens: tokens, url: url,
                                                 logLane: logLane, count: dryRunCount)
        let refusalLines = refusals.map { "a real run would refuse: " + redactor.redact(text: $0) + "." }
        if arguments.flag("--json") {
            for line in refusalLines { stderr.line("note: " + line) }
            CommandSupport.printJSON(.array(requests.map { request in
                ["method": .string(request.method), "url": .string(redactor.redact(text: request.url)),
                 "headers": request.redactedHeaders(redactor), "body": .string(redactor.redact(text: request.bodyText))]
            }))
        } else {
            let out = CommandSupport.stdout
            let pending = logLane ? wc.pendingLogs : wc.remaining
            let source = hasWorkingCopy
                ? "read from the working copy \(workPath) (left by an earlier run; pass --work DIR for a fresh one)"
                : "read from the dump (no working copy yet)"
            out.line("# dry run: nothing is sent. \(pending) \(logLane ? "log row" : "record")\(pending == 1 ? "" : "s") pending, \(source)"
                     + (requests.isEmpty ? "; nothing left to send." : "; first \(requests.count) request\(requests.count == 1 ? "" : "s"):"))
            if let targets = plan.targets {
                out.line("# " + (refusals.isEmpty ? "" : "a real run, once allowed: ") + targets.sentence(redactor: redactor))
            } else {
                out.line("# no endpoint is known: the requests below show https://URL.invalid/ where --url URL would go.")
            }
            for line in refusalLines { out.line("# " + line) }
            for (index, request) in requests.enumerated() {
                out.line("")
                out.line("--- request \(index + 1) (\(request.body.count) bytes)")
                out.line(request.rendered(redactor: redactor))
            }
        }
        return 0
    }

    /// Why the Authorization header cannot carry the starting access token (exit 2, nothing sent).
    static func tokenProblem(_ tokens: TokenRefresh.Tokens, settings: ResyncSettings) -> String? {
        guard settings.authorization != nil, let access = tokens.accessToken,
              let bad = HTTPHeader.forbiddenCharacter(inValue: access) else { return nil }
        return "header 'Authorization': the access token contains \(HTTPHeader.describe(bad)), which a header value cannot hold; "
            + "nothing was sent (pass a usable one with --set authorization.accessToken=…)"
    }

    /// This command line again, with the working copy named explicitly: what resumes the run.
    static func resumeWords(workDir: String, arguments: ParsedArguments) -> [String] {
        var words = Array(CommandLine.arguments.dropFirst())
        if arguments.value("--work") == nil { words += ["--work", workDir] }
        return [ToolInfo.name] + words
    }

    /// The working copy's lock, or nil after saying why not (another run holds it).
    static func lockWorkingCopy(_ folder: String) -> WorkingCopyLock? {
        switch WorkingCopyLock.acquire(folder: folder) {
        case .success(let lock): return lock
        case .failure(let failure):
            _ = refuse(failure.message)
            return nil
        }
    }

    /// Prints `resync: <message>` and returns the bad-input exit code.
    static func refuse(_ message: String) -> Int32 {
        CommandSupport.stderr.line("resync: \(message)")
        CommandSupport.stderr.flush()
        return 2
    }

    static func usage(_ message: String) -> Int32 {
        CommandSupport.stderr.line("resync: \(message). See 'bgeo-forensics resync --help'.")
        CommandSupport.stderr.flush()
        return 2
    }

    static func openWorkingCopy(_ path: String, dump: Dump, warn: @escaping (String) -> Void = { _ in }) throws -> WorkingCopy? {
        do {
            return try WorkingCopy(path: path, dump: dump, warn: warn)
        } catch let mismatch as WorkingCopy.Mismatch {
            CommandSupport.stderr.line("resync: \(mismatch.description)")
            CommandSupport.stderr.flush()
            return nil
        } catch let error as SQLiteError where error.primaryCode == 5 /* SQLITE_BUSY */ {
            CommandSupport.stderr.line("resync: the working copy \(path) is in use by another resync run; wait for it to finish or choose another --work")
            CommandSupport.stderr.flush()
            return nil
        }
    }

    static func listQuarantine(_ wc: WorkingCopy, arguments: ParsedArguments, export: OutputFile?, redactor: Redactor) throws -> Int32 {
        let records = try wc.quarantined()
        if let export { try exportQuarantine(wc, to: export, redactor: redactor) }
        if arguments.flag("--json") {
            CommandSupport.printJSON(.array(records.map { $0.json(redactor: redactor) }))
        } else {
            let writer = RowWriter(format: .table, columns: ["uuid", "row", "status", "reason", "at", "response"],
                                   output: CommandSupport.stdout)
            for r in records {
                writer.row(cells: [r.uuid, r.rowId.map(String.init) ?? "", String(r.status), r.reason, r.at,
                                   redactor.redact(text: r.response ?? "")], json: r.json(redactor: redactor))
            }
            writer.finish()
            CommandSupport.stderr.line("\(records.count) quarantined record(s); \(wc.remaining) still queued.")
        }
        return 0
    }

    static func exportQuarantine(_ wc: WorkingCopy, to file: OutputFile, redactor: Redactor) throws {
        var text = ""
        for record in try wc.quarantined() { text += record.json(redactor: redactor).jsonText + "\n" }
        _ = try file.write { path in try OutputFile.writeAll(Array(text.utf8), to: path) }
        CommandSupport.stderr.line("Quarantine exported to \(file.path).")
    }
}

/// Renders engine events on stderr: a redrawn bar on a terminal, plain lines otherwise.
final class ProgressRenderer {
    private let output: TextOutput
    private let tty: Bool
    private var lastPlain = -10.0
    /// The last plain line: the engine reports the end of a lane more than once, shown once.
    private var lastPlainText: String?
    /// The failure the last plain line showed: a new one gets a line at once.
    private var lastShownFailure: ResyncFailure?
    private var barShown = false
    private var total: Int?

    init(output: TextOutput, quiet: Bool) {
        self.output = output
        tty = output.isTerminal && !quiet
    }

    func handle(_ event: ResyncEvent) {
        switch event {
        case .note(let text):
            clearBar()
            output.line(text)
            output.flush()
        case .progress(let p):
            if total == nil { total = p.sent + p.remaining }
            let done = p.sent
            let rate = p.elapsed > 0 ? Double(done) / p.elapsed : 0
            let eta = rate > 0 ? Double(p.remaining) / rate : 0
            var text = "\(p.lane): \(done) sent, \(p.remaining) left, \(p.quarantined) quarantined, \(p.requests) requests"
            text += String(format: ", %.0f/s", rate)
            if p.remaining > 0, rate > 0 { text += String(format: ", ETA %.0fs", eta) }
            if p.backoff > 0 { text += String(format: ", backoff %.2fs", p.backoff) }
            if let failure = p.failing {
                text += ", last: " + failure.short
                if failure.status == 0, let status = p.lastStatus { text += ", last HTTP status \(status)" }
            }
            if tty {
                let width = 24
                let fraction = total.map { $0 > 0 ? Double($0 - p.remaining) / Double($0) : 1 } ?? 0
                let filled = max(0, min(width, Int(fraction * Double(width))))
                output.clearLine()
                output.write("[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + text)
                barShown = true
                output.flush()
            } else if p.elapsed - lastPlain >= 2 || p.remaining == 0 || p.backoff > 0
                        || (p.failing != nil && p.failing != lastShownFailure) {
                // The rate and ETA move with time; the counts say whether anything happened.
                let counts = "\(p.lane) \(done) \(p.remaining) \(p.quarantined) \(p.requests) \(p.backoff) \(p.failing?.short ?? "")"
                guard counts != lastPlainText else { return }
                lastPlainText = counts
                lastPlain = p.elapsed
                lastShownFailure = p.failing
                output.line(text)
                output.flush()
            }
        }
    }

    private func clearBar() {
        if barShown { output.clearLine(); barShown = false }
    }

    func finish() {
        if barShown { output.line() }
        output.flush()
    }
}
