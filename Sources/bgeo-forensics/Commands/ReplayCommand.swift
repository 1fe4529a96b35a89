import BGeoForensics

/// `replay`: not built yet.
enum ReplayCommand: CLICommand {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "Re-run the fixes through the SDK filter pipeline (as recorded, or what-if).",
        positionals: [PositionalSpec("DUMP", required: false, help: "The dump.")],
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        CommandSupport.stderr.line("replay is not available in this build yet.")
        return 1
    }
}
