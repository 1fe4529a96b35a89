import BGeoForensics

/// `timeline`: not built yet.
enum TimelineCommand: CLICommand {
    static let spec = CommandSpec(
        name: "timeline",
        abstract: "Reconstruct upload, backoff and token-refresh history and diagnose it.",
        positionals: [PositionalSpec("DUMP", required: false, help: "The dump.")],
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        CommandSupport.stderr.line("timeline is not available in this build yet.")
        return 1
    }
}
