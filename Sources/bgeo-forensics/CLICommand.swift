import BGeoForensics
import Foundation

/// A subcommand: its interface and what it does with parsed arguments. Returns the exit code.
protocol CLICommand {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments) throws -> Int32
}

/// Shared helpers for commands that read a dump.
enum CommandSupport {
    static let stdout = TextOutput.standardOutput
    static let stderr = TextOutput.standardError

    /// Options every dump-reading command takes.
    static let jsonOption = OptionSpec("--json", help: "Machine-readable JSON on stdout.")
    static let showSecretsOption = OptionSpec("--show-secrets",
        help: "Print tokens, Authorization headers and api keys in clear (default: redacted).")

    static func formatOption(default value: String = "table") -> OptionSpec {
        OptionSpec("--format", value: "FORMAT", help: "table | csv | ndjson | json (default \(value)).")
    }

    /// `--since` / `--until` for a command listing `what` (rows, records, history).
    static func sinceOption(_ what: String) -> OptionSpec {
        OptionSpec("--since", value: "TIME", help: "Only \(what) at or after TIME (ISO-8601, or a date YYYY-MM-DD: from its start, UTC).")
    }

    static func untilOption(_ what: String) -> OptionSpec {
        OptionSpec("--until", value: "TIME", help: "Only \(what) at or before TIME (a date YYYY-MM-DD alone means the end of that day, UTC).")
    }

    /// The filter options the user typed, as typed (`--src bogus`), for "nothing matched" notes.
    static func typedFilters(_ arguments: ParsedArguments, _ names: [String]) -> [String] {
        names.flatMap { name in arguments.all(name).map { "\(name) \($0)" } }
    }

    /// `--json` on listing commands: shorthand for `--format json`.
    static let jsonFormatOption = OptionSpec("--json", help: "Same as --format json.")

    /// The listing format from `--json` / `--format` (default table).
    static func rowFormat(_ arguments: ParsedArguments) throws(UsageError) -> RowFormat {
        try arguments.rowFormat()
    }

    /// Opens the dump named by the first positional; DumpError propagates (exit 2). A dump written
    /// by `sanitize` is announced on stderr unless the command says so in its own output.
    /// `hashing` (`InputHashing`): `.none` for a command whose output states no input hash (`gpx`,
    /// `export`, the listings): the SHA-256 would be a second full read of the dump for nothing;
    /// `.yieldingToReads` where the command's own work outlasts the hash.
    static func openDump(_ arguments: ParsedArguments, announceSanitized: Bool = true, hashing: InputHashing = .beside) throws -> Dump {
        let dump = try Dump(path: arguments.positionals[0], hashing: hashing)
        if announceSanitized { announceSanitization(of: dump) }
        return dump
    }

    /// The one way a command opens a file to write (`-`: standard output): refused when it is
    /// one of the evidence files of `inputs` or a link to one, written whole or not at all, every
    /// failure one sentence (see `OutputFile`).
    static func outputFile(_ path: String, reading inputs: [String], companions: [String] = []) throws(FileProblem) -> OutputFile {
        try OutputFile(path, protecting: EvidenceSet(inputs: inputs), companions: companions)
    }

    /// "note: this dump was sanitised …" on stderr when `sanitize` wrote the dump.
    static func announceSanitization(of dump: Dump) {
        guard let marker = dump.sanitizationMarker() else { return }
        stderr.line("note: " + marker.summary)
        stderr.flush()
    }

    /// Prints warnings to stderr after a listing, so stdout stays clean for pipes. One warning is
    /// one short line whatever it quotes (see `TerminalText.prose`).
    static func reportWarnings(_ dump: Dump) {
        guard dump.warnings.count > 0 else { return }
        let all: WarningList
        do {
            all = try dump.warnings.list()
        } catch {
            stderr.line("warning: some rows could not be read completely, and the list of them could not be read back: " + TerminalText.prose("\(error)"))
            stderr.flush()
            return
        }
        stderr.line("warning: \(all.count) row\(all.count == 1 ? "" : "s") could not be read completely:")
        for warning in all.prefix(20) { stderr.line("  " + TerminalText.prose(warning.description)) }
        if all.count > 20 { stderr.line("  … and \(all.count - 20) more (see `bgeo-forensics inspect`).") }
        stderr.flush()
    }

    static func printJSON(_ value: JSONValue) {
        stdout.jsonLine(JSONWriter(pretty: true).string(value))
        stdout.flush()
    }
}
