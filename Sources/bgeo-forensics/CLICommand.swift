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

    /// `--json` on listing commands: shorthand for `--format json`.
    static let jsonFormatOption = OptionSpec("--json", help: "Same as --format json.")

    /// The listing format from `--json` / `--format` (default table).
    static func rowFormat(_ arguments: ParsedArguments) throws(UsageError) -> RowFormat {
        if arguments.flag("--json") { return .json }
        let name = try arguments.choice("--format", RowFormat.allCases.map(\.rawValue)) ?? RowFormat.table.rawValue
        return RowFormat(rawValue: name) ?? .table
    }

    /// Opens the dump named by the first positional; DumpError propagates (exit 2).
    static func openDump(_ arguments: ParsedArguments) throws -> Dump {
        try Dump(path: arguments.positionals[0])
    }

    /// Prints warnings to stderr after a listing, so stdout stays clean for pipes. One warning is
    /// one short line whatever it quotes (see `TerminalText.prose`).
    static func reportWarnings(_ dump: Dump) {
        let all = dump.warnings.all
        guard !all.isEmpty else { return }
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
