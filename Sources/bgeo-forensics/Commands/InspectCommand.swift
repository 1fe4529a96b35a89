import BGeoForensics

/// `inspect DUMP`: the summary a support engineer reads first.
enum InspectCommand: CLICommand {
    static let spec = CommandSpec(
        name: "inspect",
        abstract: "Summarise a dump: format, input hashes, queue, log, engine state, warnings.",
        discussion: "The dump (and its -wal/-shm) is copied privately and hashed; the original is never opened for writing.",
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump.")],
        options: [CommandSupport.jsonOption, CommandSupport.showSecretsOption])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let dump = try CommandSupport.openDump(arguments, announceSanitized: false)
        // The log's secrets are learned as the log is counted.
        let summary = try DumpSummary(dump: dump, redacting: !arguments.flag("--show-secrets"))
        let out = CommandSupport.stdout
        if arguments.flag("--json") {
            try summary.writeJSON(to: out)
        } else {
            try summary.writeText { out.write(summary.redactor.redact(text: $0)) }
        }
        out.flush()
        return 0
    }
}
