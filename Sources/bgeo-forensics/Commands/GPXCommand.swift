import BGeoForensics

/// `gpx`: not built yet.
enum GPXCommand: CLICommand {
    static let spec = CommandSpec(
        name: "gpx",
        abstract: "Write the trace as GPX 1.1.",
        positionals: [PositionalSpec("DUMP", required: false, help: "The dump.")],
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        CommandSupport.stderr.line("gpx is not available in this build yet.")
        return 1
    }
}
