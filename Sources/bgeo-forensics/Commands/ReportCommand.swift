import BGeoForensics
import Foundation

/// `report DUMP [-o FILE.html]` or `report --all FOLDER [-o FOLDER]`: one self-contained HTML file per dump.
enum ReportCommand: CLICommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Write one self-contained HTML report (map, charts, findings, tables).",
        discussion: """
            The page loads nothing from the network (its Content-Security-Policy forbids it), prints
            cleanly, and embeds at most --max-rows rows per table (first and last, plus every row a
            finding cites). Secrets are redacted unless --show-secrets.
            Example reports (what .ci/reports runs): bgeo-forensics report --all Samples -o Reports --generated-at 2026-07-25T00:00:00Z
            """,
        positionals: [PositionalSpec("DUMP", required: false, help: "The dump (omit with --all).")],
        options: [
            OptionSpec("--output", short: "-o", value: "PATH",
                       help: "Output file (default ./<dump-name>.html, in the current folder); with --all, the output folder (default: the current folder)."),
            OptionSpec("--all", value: "FOLDER", help: "Write a report for every *.db in FOLDER."),
            OptionSpec("--generated-at", value: "TIME",
                       help: "Generation time to print (default now, or $BGEO_REPORT_GENERATED_AT / $SOURCE_DATE_EPOCH)."),
            OptionSpec("--gap", value: "DURATION", help: "Tracking-gap threshold, with a unit: 90s, 15m, 2h (default 15m)."),
            OptionSpec("--max-rows", value: "N", help: "Rows embedded per table (default 5000)."),
            OptionSpec("--set", value: "KEY=VALUE", repeatable: true, help: "Override a filter key for the replay (map and replay section), as in `replay --set`."),
            CommandSupport.showSecretsOption,
            OptionSpec("--json", help: "Print what was written as JSON."),
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let overrides = arguments.all("--set")
        let options = ReportOptions(
            generatedAt: ReportFile.generationTime(option: try arguments.time("--generated-at")),
            showSecrets: arguments.flag("--show-secrets"),
            gapSeconds: try arguments.duration("--gap", positive: true) ?? 15 * 60,
            maxTableRows: try arguments.int("--max-rows", range: 2...10_000_000) ?? 5000,
            overrides: overrides)
        var jobs: [(dump: String, output: String)] = []
        if let folder = arguments.value("--all") {
            guard arguments.positionals.isEmpty else { throw UsageError(message: "give either DUMP or --all FOLDER, not both") }
            let outFolder = arguments.value("--output") ?? "."
            try FileProblem.checkFolder(outFolder)
            // The output folder is the target here: made when missing, in a folder that exists (as
            // a file -o must be).
            let parent = URL(fileURLWithPath: outFolder).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: outFolder) {
                guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
                    throw FileProblem(path: outFolder, reason: "the folder \(parent) does not exist (create it first)", action: "create the folder")
                }
                guard mkdir(outFolder, 0o777) == 0 else {
                    throw FileProblem(path: outFolder, reason: OutputFile.reason(errno, folder: parent), action: "create the folder")
                }
            }
            let dumps: [String]
            do { dumps = try ReportFile.dumps(in: folder) } catch {
                throw UsageError(message: "cannot list '\(folder)'")
            }
            guard !dumps.isEmpty else { throw UsageError(message: "no *.db files in '\(folder)'") }
            jobs = dumps.map { ($0, ReportFile.defaultOutput(for: $0, folder: outFolder)) }
        } else {
            guard let dump = arguments.positionals.first else { throw UsageError(message: "missing DUMP (or --all FOLDER)") }
            jobs = [(dump, arguments.value("--output") ?? ReportFile.defaultOutput(for: dump))]
        }
        let inputs = jobs.map(\.dump)
        // The single report's target is checked before any work; with --all each is checked at its turn.
        var first: OutputFile? = jobs.count == 1 ? try CommandSupport.outputFile(jobs[0].output, reading: inputs) : nil
        var written: [JSONValue] = []
        var status: Int32 = 0
        for job in jobs {
            do {
                let target = try first ?? CommandSupport.outputFile(job.output, reading: inputs)
                first = nil
                let result = try ReportFile.write(dumpPath: job.dump, to: target, options: options,
                                                  progress: StageProgress(label: "report"))
                let findings = result.document.findings
                written.append(["dump": .string(job.dump), "output": .string(job.output), "bytes": .int(Int64(result.bytes)),
                                "findings": .int(Int64(findings.count)),
                                "errors": .int(Int64(findings.filter { $0.severity == .error }.count))])
                if !arguments.flag("--json") {
                    CommandSupport.stderr.line("wrote \(job.output) (\(result.bytes) bytes, \(findings.count) finding\(findings.count == 1 ? "" : "s"))")
                }
                if let sanitized = result.document.sanitized { CommandSupport.stderr.line("  note: " + sanitized) }
            } catch let error as DumpError {
                if jobs.count == 1 { throw error }
                CommandSupport.stderr.line(error.description)
                status = 2
            }
        }
        if arguments.flag("--json") { CommandSupport.printJSON(.array(written)) }
        CommandSupport.stderr.flush()
        return status
    }
}
