import BGeoForensics
import Foundation

/// Every subcommand, in the order `--help` lists them.
let commands: [any CLICommand.Type] = [
    InspectCommand.self, LocationsCommand.self, LogsCommand.self, ReplayCommand.self, TimelineCommand.self,
    ReportCommand.self, GPXCommand.self, ExportCommand.self, FleetCommand.self, ResyncCommand.self, SanitizeCommand.self,
    SimulateCommand.self,
    CompletionsCommand.self, ManPageCommand.self,
]

@MainActor func overview() -> String {
    var lines = [
        "\(ToolInfo.name) \(ToolInfo.version): \(ToolInfo.summary)",
        "",
        "Usage: \(ToolInfo.name) <command> [arguments] [options]",
        "       \(ToolInfo.name) --version | -V | version",
        "",
        "Commands:",
    ]
    for command in commands {
        let name = command.spec.name
        lines.append("  " + name + String(repeating: " ", count: max(1, 12 - name.count)) + command.spec.abstract)
    }
    lines.append("")
    lines.append("Every command takes --help. Dumps are never modified: each is copied privately and hashed first.")
    return lines.joined(separator: "\n") + "\n"
}

/// " Did you mean 'timeline'?" for a mistyped command name, or "".
@MainActor func suggestion(for word: String) -> String {
    Suggestion.closest(to: word, among: commands.map { $0.spec.name }).map { " Did you mean '\($0)'?" } ?? ""
}

@MainActor func runMain() -> Int32 {
    // As the kernel passed them: `CommandLine.arguments` loses the bytes of a name that is not UTF-8.
    let words = Array(RawPath.commandLine().dropFirst())
    guard let first = words.first, first != "--help", first != "-h", first != "help" else {
        if words.count >= 2, words[0] == "help", let command = commands.first(where: { $0.spec.name == words[1] }) {
            print(command.spec.helpText(width: CommandSupport.stdout.helpWidth), terminator: "")
        } else if words.count >= 2, words[0] == "help" {
            CommandSupport.stderr.line("Unknown command '\(words[1])'.\(suggestion(for: words[1])) Run '\(ToolInfo.name) --help' for the list.")
            CommandSupport.stderr.flush()
            return 2
        } else {
            print(overview(), terminator: "")
        }
        return words.isEmpty ? 2 : 0
    }
    if ["--version", "-V", "version"].contains(first) {
        print("\(ToolInfo.name) \(ToolInfo.version)")
        return 0
    }
    guard let command = commands.first(where: { $0.spec.name == first }) else {
        if first.hasPrefix("-") {
            let hint = Suggestion.closest(to: first, among: ["--version", "--help"]).map { " Did you mean '\($0)'?" } ?? ""
            CommandSupport.stderr.line("Unknown option '\(first)'.\(hint) Run '\(ToolInfo.name) --help' for the commands and their options.")
            CommandSupport.stderr.flush()
            return 2
        }
        CommandSupport.stderr.line("Unknown command '\(first)'.\(suggestion(for: first)) Run '\(ToolInfo.name) --help' for the list.")
        CommandSupport.stderr.flush()
        return 2
    }
    do {
        let arguments = try command.spec.parse(Array(words.dropFirst()))
        if let when = try arguments.choice("--color", ColourChoice.allCases.map(\.rawValue)).flatMap(ColourChoice.init(rawValue:)) {
            CommandSupport.stdout.useColour(when)
            CommandSupport.stderr.useColour(when)
        }
        if arguments.flag("--help") {
            print(command.spec.helpText(width: CommandSupport.stdout.helpWidth), terminator: "")
            return 0
        }
        let code = try command.run(arguments)
        CommandSupport.stdout.flush()
        CommandSupport.stderr.flush()
        return code
    } catch let error as DumpError {
        CommandSupport.stdout.flush()
        CommandSupport.stderr.line(TerminalText.escaped(error.description))
        CommandSupport.stderr.flush()
        // A full or refused $TMPDIR is the machine's failure, not bad input.
        return error.isEnvironmental ? 1 : 2
    } catch let error as UsageError {
        CommandSupport.stdout.flush()
        let stop = error.message.hasSuffix("?") || error.message.hasSuffix(".") ? " " : ". "
        CommandSupport.stderr.line("\(error.message)\(stop)See '\(ToolInfo.name) \(command.spec.name) --help'.")
        CommandSupport.stderr.flush()
        return 2
    } catch let error as FileProblem {
        CommandSupport.stdout.flush()
        CommandSupport.stderr.line("\(command.spec.name): \(error.description).")
        CommandSupport.stderr.flush()
        return 2
    } catch let error where FileProblem.from(error) != nil {
        // A file or folder the user named could not be used: one sentence, not the platform's error.
        let problem = FileProblem.from(error)!
        CommandSupport.stdout.flush()
        CommandSupport.stderr.line("\(command.spec.name): \(problem.description).")
        CommandSupport.stderr.flush()
        return problem.isInputProblem ? 2 : 1
    } catch {
        CommandSupport.stdout.flush()
        CommandSupport.stderr.line("\(command.spec.name) failed: \(error)")
        CommandSupport.stderr.flush()
        return 1
    }
}

// Before anything is read: large buffers go back to the system when freed (`LargeAllocations`).
LargeAllocations.returnedWhenFreed()
exit(runMain())
