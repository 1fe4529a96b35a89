import BGeoForensics
import BGeoSanitize
import Foundation

/// `sanitize DUMP -o OUT.db`: a shareable copy that still diagnoses the same.
enum SanitizeCommand: CLICommand {
    static let spec = CommandSpec(
        name: "sanitize",
        abstract: "Write a copy of a dump without secrets (and, by default, without customer data) that still diagnoses the same.",
        discussion: """
            Always: every secret the dump holds (state.config tokens and header values, state.auth, tokens and
            api keys in config lines, http.* and auth.* data, response bodies, and every other occurrence of a
            learned secret in any column) is replaced by the fingerprint bgeo-forensics prints (‹redacted
            sha256:…›). Same format out as in (BGeo current, legacy, LongPing), row ids kept, the -wal folded
            in, written with VACUUM INTO into one file, checked (integrity, no free pages, no learned secret in
            its raw bytes) and only then renamed into place. The original is never written (hashed before and
            after). The output's state records `sanitized`, which every command then mentions.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump.")],
        options: [
            OptionSpec("--output", short: "-o", value: "OUT.db", help: "The sanitised copy to write (never the dump; an existing file only with --force)."),
            OptionSpec("--extras", value: "MODE", help: "drop | hash | keep for extras, params and app (src js) log lines (default hash: keyed hash of each value, keys kept)."),
            OptionSpec("--urls", value: "MODE", help: "keep | host (default host: scheme://host[:port] only, path and query removed)."),
            OptionSpec("--coords", value: "MODE", help: "keep | shift | coarsen=METERS (default shift: a secret rotation of the globe; replay stays identical; coarsen may change replay)."),
            OptionSpec("--force", help: "Replace an existing output file (and stale -wal/-journal beside it)."),
            CommandSupport.jsonOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let output = arguments.value("--output") else { throw UsageError(message: "sanitize needs -o OUT.db") }
        var options = SanitizeOptions(force: arguments.flag("--force"))
        if let extras = try arguments.choice("--extras", ExtrasPolicy.allCases.map(\.rawValue)) {
            options.extras = ExtrasPolicy(rawValue: extras) ?? .hash
        }
        if let urls = try arguments.choice("--urls", URLPolicy.allCases.map(\.rawValue)) { options.urls = URLPolicy(rawValue: urls) ?? .host }
        if let coords = arguments.value("--coords") {
            guard let policy = CoordinatePolicy(argument: coords) else {
                throw UsageError(message: "--coords takes keep, shift or coarsen=METERS (1 to 1000000), not '\(coords)'")
            }
            options.coordinates = policy
        }
        let report: SanitizeReport
        do {
            report = try Sanitizer.run(dumpPath: arguments.positionals[0], outputPath: output, options: options,
                                       progress: StageProgress(label: "sanitize"))
        } catch SanitizeError.cannotWrite(let path, let reason) {
            throw FileProblem(path: path, reason: reason)  // the same sentence every command gives
        } catch let error as SanitizeError where error.isUsage {
            throw UsageError(message: error.description)
        } catch let error as SanitizeError {
            CommandSupport.stderr.line(error.description)
            CommandSupport.stderr.flush()
            return 1
        }
        CommandSupport.stderr.write(report.text)
        CommandSupport.stderr.flush()
        if arguments.flag("--json") {
            try report.writeJSON(to: CommandSupport.stdout)
            CommandSupport.stdout.flush()
        }
        guard report.evidenceUnchanged else {
            CommandSupport.stderr.line(SanitizeError.evidenceChanged(path: report.dump).description)
            CommandSupport.stderr.flush()
            return 1
        }
        return 0
    }
}
