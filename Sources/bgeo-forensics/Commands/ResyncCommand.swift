import BGeoForensics

/// `resync`: not built yet.
enum ResyncCommand: CLICommand {
    static let spec = CommandSpec(
        name: "resync",
        abstract: "Drain a copy of a stranded queue to an endpoint with the SDK's HTTP contract.",
        positionals: [PositionalSpec("DUMP", required: false, help: "The dump.")],
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        CommandSupport.stderr.line("resync is not available in this build yet.")
        return 1
    }
}
