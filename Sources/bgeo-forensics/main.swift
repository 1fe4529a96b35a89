import BGeoForensics
import Foundation

/// Every subcommand, in the order `--help` lists them.
let commands: [any CLICommand.Type] = [
    InspectCommand.self, LocationsCommand.self, LogsCommand.self, ReplayCommand.self, TimelineCommand.self,
    ReportCommand.self, GPXCommand.self, ResyncCommand.self, SimulateCommand.self,
]

@MainActor func overview() -> String {
    var lines = [
        "\(ToolInfo.name) \(ToolInfo.version): read BGeo / LongPing device dumps as evidence, replay them, explain them, re-sync them.",
        "",
        "Usage: \(ToolInfo.name) <command> [arguments] [options]",
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

@MainActor func runMain() -> Int32 {
    let words = Array(CommandLine.arguments.dropFirst())
    guard let first = words.first, first != "--help", first != "-h", first != "help" else {
        if words.count >= 2, words[0] == "help", let command = commands.first(where: { $0.spec.name == words[1] }) {
            print(command.spec.helpText(), terminator: "")
        } else {
            print(overview(), terminator: "")
        }
        return words.isEmpty ? 2 : 0
    }
    if first == "--version" {
        print("\(ToolInfo.name) \(ToolInfo.version)")
        return 0
    }
    guard let command = commands.first(where: { $0.spec.name == first }) else {
        CommandSupport.stderr.line("Unknown command '\(first)'. Run '\(ToolInfo.name) --help' for the list.")
        CommandSupport.stderr.flush()
        return 2
    }
    do {
        let arguments = try command.spec.parse(Array(words.dropFirst()))
        if arguments.flag("--help") {
            print(command.spec.helpText(), terminator: "")
            return 0
        }
        let code = try command.run(arguments)
        CommandSupport.stdout.flush()
        return code
    } catch let error as DumpError {
        CommandSupport.stdout.flush()
        CommandSupport.stderr.line(TerminalText.escaped(error.description))
        CommandSupport.stderr.flush()
        return 2
    } catch let error as UsageError {
        CommandSupport.stderr.line("\(error.message). See '\(ToolInfo.name) \(command.spec.name) --help'.")
        CommandSupport.stderr.flush()
        return 2
    } catch {
        CommandSupport.stdout.flush()
        CommandSupport.stderr.line("\(command.spec.name) failed: \(error)")
        CommandSupport.stderr.flush()
        return 1
    }
}

exit(runMain())
