import BGeoForensics

/// `simulate`: not built yet.
enum SimulateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Write a realistic simulated dump for a named scenario.",
        positionals: [PositionalSpec("DUMP", required: false, help: "The dump.")],
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        CommandSupport.stderr.line("simulate is not available in this build yet.")
        return 1
    }
}
