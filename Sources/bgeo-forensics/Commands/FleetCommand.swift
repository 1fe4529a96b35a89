import BGeoForensics
import BGeoFleet
import Foundation

/// `fleet PATH… -o dumps.ndjson [--findings findings.ndjson] [--jobs N]`: one NDJSON row per
/// input, for DuckDB, pandas and Spark; `fleet --paths-from - -o -`: the same as a pipe stage.
enum FleetCommand: CLICommand {
    static let spec = CommandSpec(
        name: "fleet",
        abstract: "Analyse many dumps in parallel: one NDJSON row per input (DuckDB, pandas, Spark).",
        discussion: """
            Walks the files and folders given (hidden entries, -wal/-shm/-journal companions and
            non-regular files skipped inside folders) and analyses every input in its own process,
            --jobs at a time, each bounded in memory and time: one input's crash, runaway memory
            or hang becomes that input's 'failed' row and the run goes on. Each row: path, size,
            SHA-256, format, schema, device, time span, queue depth by kind and the oldest pending
            record, log rows, findings (code, severity, count, first/last time), recorded vs
            replayed odometer, warnings, config highlights. An input that is not a dump gets a row
            with the sentence and exit code 2 (status not_a_dump); a TMPDIR that is full or not
            a folder fails the analysis instead (status failed, retried). Rows go to -o FILE as inputs
            finish (in that order); re-running with the same -o skips the dumps already there (by
            SHA-256), retries failed ones and repairs a line cut short by a kill. Secrets are
            redacted unless --show-secrets. A progress bar on a terminal.

            As a pipe stage (xargs, GNU parallel, Spark): --paths-from - reads the paths from
            standard input (after any PATH given), one per line, or NUL-terminated with --null
            (find -print0), so that any file name works; -o - writes the rows on standard output
            in the order the inputs were given, whatever --jobs, and nothing else there (the
            progress and the summary go to stderr). -o - cannot resume (there is no file to
            resume): every input gets its row, identical copies too; --findings and --json need
            -o FILE.
            """,
        positionals: [PositionalSpec("PATH", required: false, variadic: true, help: "Dump files and folders of dumps.")],
        options: [
            OptionSpec("--output", short: "-o", value: "FILE", help: "The NDJSON rows, one per input (appended to when resuming); - for standard output, in input order (no resume)."),
            OptionSpec("--paths-from", value: "FILE", help: "Also the paths listed in FILE (- for standard input), one per line, after the PATHs given; blank lines skipped."),
            OptionSpec("--null", help: "The --paths-from list is NUL-separated (find -print0), for names holding a newline."),
            OptionSpec("--findings", value: "FILE", help: "Also one NDJSON line per finding, with the dump's SHA-256 and evidence."),
            OptionSpec("--jobs", short: "-j", value: "N", help: "Analyses at once (default: the number of cores, \(ProcessInfo.processInfo.activeProcessorCount) here)."),
            OptionSpec("--timeout", value: "DURATION", help: "Longest one input may take before it is stopped and marked failed (default 30m; 0 = none)."),
            OptionSpec("--memory-limit", value: "SIZE", help: "Address space each analysis may use, e.g. 4G or 800M (default: ¾ of the memory / jobs, at least 1G; 0 = none)."),
            CommandSupport.showSecretsOption,
            OptionSpec("--json", help: "Print the run's counts as JSON on stdout."),
            OptionSpec("--worker", value: "FILE", help: "Internal: analyse one input and print its lines (fleet runs itself this way)."),
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let memoryLimit = try size("--memory-limit", arguments.value("--memory-limit"))
        if let file = arguments.value("--worker") { return worker(file, memoryLimit: memoryLimit, showSecrets: arguments.flag("--show-secrets")) }
        let list = arguments.value("--paths-from")
        guard !arguments.positionals.isEmpty || list != nil else {
            throw UsageError(message: "fleet needs at least one PATH (a dump or a folder), or --paths-from FILE")
        }
        if list == nil, arguments.flag("--null") { throw UsageError(message: "--null says how the --paths-from list is separated; give --paths-from FILE") }
        guard let output = arguments.value("--output") else { throw UsageError(message: "fleet needs -o FILE for its NDJSON rows (or -o - for standard output)") }
        let toStdout = output == "-"
        let findingsPath = arguments.value("--findings")
        if findingsPath == "-" { throw UsageError(message: "--findings writes to a file (standard output is for -o -)") }
        // Standard output holds the rows only, and a findings file could not follow a run that cannot resume.
        if toStdout, findingsPath != nil { throw UsageError(message: "--findings needs -o FILE: with -o - nothing can be resumed") }
        if toStdout, arguments.flag("--json") { throw UsageError(message: "--json needs -o FILE: with -o - standard output holds only the rows") }
        if let findingsPath, EvidenceOutputGuard.canonical(findingsPath) == EvidenceOutputGuard.canonical(output) {
            throw UsageError(message: "--findings must be another file than -o")
        }
        // A path named on the command line that is not there is a typo, said at once like every
        // command's missing input (exit 2, nothing written); a list's stale entry gets its row.
        for path in arguments.positionals {
            var info = stat()
            if RawPath.stat(path, &info) != 0, errno == ENOENT {
                throw UsageError(message: "\(TerminalText.prose(path)): no such file or folder; nothing was analysed")
            }
        }
        // The paths named, then the list's: read whole before the first analysis, so the progress knows the total.
        let paths = try arguments.positionals + (list.map { try FleetPathList.read($0, nullSeparated: arguments.flag("--null")) } ?? [])
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = try arguments.int("--jobs", range: 1...256) ?? cores
        let timeout = try arguments.duration("--timeout") ?? 30 * 60
        // Three quarters of the memory shared by the jobs: even all of them at their limit leave the run (and the machine) room.
        let limit = memoryLimit ?? max(1 << 30, ProcessInfo.processInfo.physicalMemory / 4 * 3 / UInt64(jobs))
        let outputs = (toStdout ? [] : [output]) + (findingsPath.map { [$0] } ?? [])
        let inputs = FleetInputs.collect(paths, excluding: outputs)
        // Against the paths as named too: an output that is a named dump (or a link to one) is
        // left out of the inputs, and must still be refused.
        for path in outputs { try EvidenceOutputGuard.check(output: path, evidence: inputs.map(\.path) + paths) }
        let sink: any FleetSink = toStdout ? FleetStream() : try FleetLedger(outputPath: output, findingsPath: findingsPath)
        var workerArguments = ["fleet"]
        if limit > 0 { workerArguments += ["--memory-limit", String(limit)] }
        if arguments.flag("--show-secrets") { workerArguments.append("--show-secrets") }
        workerArguments.append("--worker")
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let runner = try FleetRunner(
            inputs: inputs, sink: sink,
            settings: FleetRunner.Settings(executable: executable, workerArguments: workerArguments, jobs: jobs,
                                           timeout: timeout > 0 ? timeout : nil, memoryLimit: limit > 0 ? limit : nil,
                                           writesFindings: findingsPath != nil),
            progress: FleetProgress())
        // Ctrl-C / kill: stop the analyses, keep every complete line, clean the private folders.
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { runner.cancel() }
            source.resume()
            sources.append(source)
        }
        let summary = runner.run()
        sources.forEach { $0.cancel() }
        if let failure = sink.failure {
            CommandSupport.stderr.line("fleet: writing \(toStdout ? "to standard output" : "'\(output)'") failed: \(failure)")
            CommandSupport.stderr.flush()
            return 1
        }
        if arguments.flag("--json") { CommandSupport.printJSON(summary.json) }
        let err = CommandSupport.stderr
        var parts = ["\(summary.analysed) analysed"]
        if summary.notDumps > 0 { parts.append(summary.notDumps == 1 ? "1 not a dump" : "\(summary.notDumps) not dumps") }
        if summary.failed > 0 { parts.append("\(summary.failed) failed (re-run to retry)") }
        if summary.skipped > 0 { parts.append("\(summary.skipped) skipped (already in \(output) or identical to another input)") }
        err.line("fleet: \(summary.inputs) input\(summary.inputs == 1 ? "" : "s"): " + parts.joined(separator: ", ")
            + String(format: " in %.1f s; rows %@", summary.seconds, toStdout ? "on standard output" : "in " + output)
            + (findingsPath.map { ", findings in \($0)" } ?? ""))
        if summary.resumedRows > 0 || summary.droppedRows > 0 {
            err.line("fleet: resumed \(output): kept \(summary.resumedRows) row\(summary.resumedRows == 1 ? "" : "s"), redid \(summary.droppedRows) (failed, cut short or not found)")
        }
        if summary.interrupted {
            err.line("fleet: interrupted after \(summary.done) of \(summary.inputs); "
                + (toStdout ? "the rows out are those of the first inputs, in order (-o - cannot resume)." : "run the same command again to resume."))
            err.flush()
            return 130
        }
        err.flush()
        return 0
    }

    /// `fleet --worker FILE`: the analysis of one input, in this process — its row, then one line
    /// per finding, on stdout. The parent reads them; a crash here is the parent's failed row.
    static func worker(_ path: String, memoryLimit: UInt64?, showSecrets: Bool) -> Int32 {
        // First: from here on, the fleet's death ends this analysis and removes its folder.
        FleetLifeline.watchInWorker()
        if let memoryLimit, memoryLimit > 0 {
            var limit = rlimit(rlim_cur: rlim_t(memoryLimit), rlim_max: rlim_t(memoryLimit))
            _ = setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
        }
        let result = FleetAnalysis.analyse(path: path, showSecrets: showSecrets)
        let out = CommandSupport.stdout
        out.line(JSONWriter().string(.object(result.row)))
        for line in result.findings { out.line(JSONWriter().string(.object(line))) }
        out.flush()
        return 0
    }

    /// `4G`, `800M`, `1024K`, or bytes; 0 means no limit.
    static func size(_ name: String, _ text: String?) throws(UsageError) -> UInt64? {
        guard let text else { return nil }
        let units: [Character: UInt64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = text.uppercased()
        if digits.hasSuffix("B") { digits.removeLast() }
        var scale: UInt64 = 1
        if let last = digits.last, let unit = units[last] { scale = unit; digits.removeLast() }
        guard let number = UInt64(digits), number <= UInt64.max / scale else {
            throw UsageError(message: "\(name) takes a size such as 4G, 800M or a number of bytes, not '\(text)'")
        }
        return number * scale
    }
}
