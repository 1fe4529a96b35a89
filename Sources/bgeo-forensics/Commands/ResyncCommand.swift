import BGeoForensics
import Foundation

/// `resync DUMP --url URL`: drains a working copy of a stranded queue to an endpoint with the
/// SDK's exact HTTP contract. The evidence is never written; everything happens in `--work`.
enum ResyncCommand: CLICommand {
    static let spec = CommandSpec(
        name: "resync",
        abstract: "Drain a copy of a stranded queue to an endpoint with the SDK's HTTP contract.",
        discussion: """
            The queue (and log rows) are copied into a working copy (--work, default ./<sha256>.resync/) and \
            drained oldest first; re-running resumes it. Nothing is lost: a record leaves the working queue only \
            on a 2xx or as poison into the quarantine. Exit 0 when the queue is empty, 3 when records remain, \
            2 on bad input.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump (never modified).")],
        options: [
            OptionSpec("--url", value: "URL", help: "Endpoint for location uploads (replaces the config's url)."),
            OptionSpec("--work", value: "DIR", help: "Working-copy folder (default ./<dump-sha256-prefix>.resync)."),
            OptionSpec("--set", value: "KEY=VALUE", repeatable: true,
                       help: "Override a config key; dotted paths, e.g. authorization.refreshUrl=https://…"),
            OptionSpec("--config", value: "FILE.json", help: "Merge a JSON config over the dump's recorded config."),
            OptionSpec("--policy", value: "POLICY", help: "bgeo | longping (default: the dump's engine)."),
            OptionSpec("--backoff-initial", value: "S", help: "First backoff delay in seconds (policy default 5 / 10)."),
            OptionSpec("--backoff-max", value: "S", help: "Backoff cap in seconds (policy default 300 / 900)."),
            OptionSpec("--max-attempts", value: "N", help: "Stop after N consecutive failed attempts (records stay queued)."),
            OptionSpec("--deadline", value: "DURATION", help: "Stop after DURATION (e.g. 90s, 15m); records stay queued."),
            OptionSpec("--logs", help: "Log lane: re-upload log_entries not yet uploaded to --log-url (or logUrl)."),
            OptionSpec("--log-url", value: "URL", help: "Endpoint for the log lane (replaces the config's logUrl)."),
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
        let backoffInitial = try arguments.double("--backoff-initial")
        let backoffMax = try arguments.double("--backoff-max")
        for (name, value) in [("--backoff-initial", backoffInitial), ("--backoff-max", backoffMax)] {
            if let value, value < 0 { throw UsageError(message: "\(name) must not be negative") }
        }
        let maxAttempts = try arguments.int("--max-attempts", range: 1...Int.max)
        let deadline = try arguments.duration("--deadline")
        let dryRunCount = try arguments.int("--requests", range: 1...10_000) ?? 3
        let logLane = arguments.flag("--logs")
        for option in ["--url", "--log-url"] {
            if let text = arguments.value(option), !isHTTPURL(text) {
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
        var redactor = dump.makeRedactor(enabled: !arguments.flag("--show-secrets"))
        let sets = arguments.all("--set")
        let settings: ResyncSettings
        do {
            let config = try ResyncSetup.effectiveConfig(recorded: dump.recordedConfig().config,
                                                         configFile: arguments.value("--config"), sets: sets,
                                                         url: arguments.value("--url"), logURL: arguments.value("--log-url"))
            redactor.learnSecrets(in: .object(config.object))
            settings = try ResyncSettings(config: config)
        } catch {
            stderr.line("resync: \(error.description)")
            stderr.flush()
            return 2
        }

        let workDir = work.path
        let workPath = workDir + "/work.db"
        let hasWorkingCopy = FileManager.default.fileExists(atPath: workPath)

        if arguments.flag("--quarantine") {
            guard hasWorkingCopy else {
                stderr.line("resync: no working copy at \(workPath) yet (nothing was re-synced, so nothing is quarantined).")
                stderr.flush()
                return 2
            }
            let wc = try openWorkingCopy(workPath, dump: dump)
            guard let wc else { return 2 }
            return try listQuarantine(wc, arguments: arguments, redactor: redactor)
        }

        let url: String
        if logLane {
            guard let logURL = settings.logURL, isHTTPURL(logURL) else {
                return usage("the log lane needs --log-url URL (the dump's config has no usable logUrl)")
            }
            url = settings.url ?? logURL
        } else {
            guard let configured = settings.url else {
                return usage("no endpoint: pass --url URL (the dump's config has no url)")
            }
            guard isHTTPURL(configured) else { return usage("the config's url '\(configured)' is not an http(s) URL; pass --url") }
            url = configured
        }

        if arguments.flag("--dry-run") {
            let wc: WorkingCopy?
            if hasWorkingCopy { wc = try openWorkingCopy(workPath, dump: dump) } else {
                wc = try WorkingCopy(path: ":memory:", dump: dump) { stderr.line("warning: \($0)") }
            }
            guard let wc else { return 2 }
            let tokens = ResyncSetup.initialTokens(settings: settings, explicit: ResyncSetup.explicitTokens(sets: sets),
                                                   stored: try wc.storedTokens(), stateAuth: dump.engineState().auth)
            for token in [tokens.accessToken, tokens.refreshToken].compactMap({ $0 }) { redactor.learn(secret: token) }
            let requests = try ResyncDryRun.requests(wc, settings: settings, tokens: tokens, url: url,
                                                     logLane: logLane, count: dryRunCount)
            if arguments.flag("--json") {
                CommandSupport.printJSON(.array(requests.map { request in
                    ["method": .string(request.method), "url": .string(request.url),
                     "headers": request.redactedHeaders(redactor), "body": .string(redactor.redact(text: request.bodyText))]
                }))
            } else {
                let out = CommandSupport.stdout
                out.line("# dry run: nothing is sent. \(logLane ? wc.pendingLogs : wc.remaining) pending; first \(requests.count) request(s):")
                for (index, request) in requests.enumerated() {
                    out.line("")
                    out.line("--- request \(index + 1) (\(request.body.count) bytes)")
                    out.line(request.rendered(redactor: redactor))
                }
            }
            return 0
        }

        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if !hasWorkingCopy { stderr.line("Creating working copy \(workPath) …"); stderr.flush() }
        guard let wc = try openWorkingCopy(workPath, dump: dump, warn: { stderr.line("warning: \($0)") }) else { return 2 }
        let tokens = ResyncSetup.initialTokens(settings: settings, explicit: ResyncSetup.explicitTokens(sets: sets),
                                               stored: try wc.storedTokens(), stateAuth: dump.engineState().auth)
        var policy = UploadPolicy.named(policyName.flatMap(UploadPolicy.Engine.init(rawValue:))
                                        ?? (dump.layout.format == .longping ? .longping : .bgeo))
        policy.backoff = policy.backoff.scaled(initial: backoffInitial, cap: backoffMax)
        let options = ResyncOptions(policy: policy, maxAttempts: maxAttempts, deadline: deadline, url: url,
                                    logURL: logLane ? settings.logURL : nil)
        let progress = ProgressRenderer(output: stderr, quiet: false)
        let engine = ResyncEngine(workingCopy: wc, settings: settings, tokens: tokens, options: options,
                                  transport: RoutingTransport(timeout: settings.timeout), redactor: redactor,
                                  onEvent: { progress.handle($0) })
        let started = Date()
        if logLane { try engine.drainLogs() } else { try engine.drainLocations() }
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
        let finalRedactor = engine.redactor
        if let file = arguments.value("--export-quarantine") { try exportQuarantine(wc, to: file, redactor: finalRedactor) }
        if arguments.flag("--json") {
            CommandSupport.printJSON(summary.json(redactor: finalRedactor))
        } else {
            CommandSupport.stdout.write(summary.text(redactor: finalRedactor))
        }
        CommandSupport.reportWarnings(dump)
        return summary.exitCode
    }

    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil else { return false }
        return scheme == "http" || scheme == "https"
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
            CommandSupport.stderr.line("resync: the working copy \(path) is in use by another resync run; wait for it or choose another --work")
            CommandSupport.stderr.flush()
            return nil
        }
    }

    static func listQuarantine(_ wc: WorkingCopy, arguments: ParsedArguments, redactor: Redactor) throws -> Int32 {
        let records = try wc.quarantined()
        if let file = arguments.value("--export-quarantine") { try exportQuarantine(wc, to: file, redactor: redactor) }
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

    static func exportQuarantine(_ wc: WorkingCopy, to file: String, redactor: Redactor) throws {
        var text = ""
        for record in try wc.quarantined() { text += record.json(redactor: redactor).jsonText + "\n" }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        CommandSupport.stderr.line("Quarantine exported to \(file).")
    }
}

/// Renders engine events on stderr: a redrawn bar on a terminal, plain lines otherwise.
final class ProgressRenderer {
    private let output: TextOutput
    private let tty: Bool
    private var lastPlain = -10.0
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
            if tty {
                let width = 24
                let fraction = total.map { $0 > 0 ? Double($0 - p.remaining) / Double($0) : 1 } ?? 0
                let filled = max(0, min(width, Int(fraction * Double(width))))
                output.clearLine()
                output.write("[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + text)
                barShown = true
                output.flush()
            } else if p.elapsed - lastPlain >= 2 || p.remaining == 0 {
                lastPlain = p.elapsed
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
