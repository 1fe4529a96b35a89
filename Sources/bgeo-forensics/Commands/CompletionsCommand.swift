import BGeoForensics

/// `completions SHELL`: the bash, zsh or fish completion script, generated from every command's spec.
enum CompletionsCommand: CLICommand {
    static let spec = CommandSpec(
        name: "completions",
        abstract: "Print the bash, zsh or fish completion script (commands, options, file arguments).",
        discussion: """
            Generated from the same specs as --help. The Debian package installs all three; to install
            one by hand, e.g. for bash: bgeo-forensics completions bash > ~/.local/share/bash-completion/completions/bgeo-forensics
            (zsh: a file _bgeo-forensics in a folder of your $fpath; fish: ~/.config/fish/completions/bgeo-forensics.fish).
            """,
        positionals: [PositionalSpec("SHELL", help: "bash | zsh | fish.")],
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let word = arguments.positionals[0]
        guard let shell = ShellCompletion.Shell(rawValue: word) else {
            let names = ShellCompletion.Shell.allCases.map(\.rawValue)
            let hint = Suggestion.closest(to: word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError(message: "SHELL is one of \(names.joined(separator: ", ")), not '\(word)'\(hint)", command: spec.name)
        }
        CommandSupport.stdout.write(ShellCompletion(shell: shell, commands: allSpecs()).script())
        CommandSupport.stdout.flush()
        return 0
    }

    /// Every command's spec, in `--help`'s order. `commands` is main.swift's (main-actor) list, and
    /// commands run on the main thread, so reading it here is checked, not assumed.
    static func allSpecs() -> [CommandSpec] {
        MainActor.assumeIsolated { commands.map { $0.spec } }
    }
}
