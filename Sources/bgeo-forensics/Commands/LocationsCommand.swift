import BGeoForensics

/// `locations DUMP`: queue records in drain order, like the SDK's getLocations().
enum LocationsCommand: CLICommand {
    static let spec = CommandSpec(
        name: "locations",
        abstract: "List queued records oldest first (drain order), like getLocations().",
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump.")],
        options: [
            CommandSupport.sinceOption("records"),
            CommandSupport.untilOption("records"),
            OptionSpec("--uuid", value: "UUID", help: "Only the record with this uuid."),
            OptionSpec("--kind", value: "KIND", help: "location | geofence."),
            OptionSpec("--limit", value: "N", help: "At most N records (0 = all, as in every command)."),
            CommandSupport.formatOption(),
            CommandSupport.jsonFormatOption,
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let format = try CommandSupport.rowFormat(arguments)
        let window = try arguments.timeWindow()
        let query = QueueQuery(
            since: window.since, until: window.until, uuid: arguments.value("--uuid"),
            // One meaning of --limit 0 across commands: no limit (logs reads it the same way).
            limit: try arguments.int("--limit", range: 0...Int.max).flatMap { $0 == 0 ? nil : $0 },
            kind: try arguments.choice("--kind", ["location", "geofence"]).flatMap(RecordKind.init(rawValue:)))
        let dump = try CommandSupport.openDump(arguments, hashing: .none)
        let redactor = dump.makeRedactor(enabled: !arguments.flag("--show-secrets"))
        let writer = RowWriter(format: format, columns: LocationListing.columns, output: CommandSupport.stdout)
        LocationListing.write(dump, query: query, redactor: redactor, to: writer)
        writer.finish()
        if writer.count == 0 {
            let filters = CommandSupport.typedFilters(arguments, ["--since", "--until", "--uuid", "--kind", "--limit"])
            CommandSupport.stderr.line(EmptyListingNote.queue(dump, filters: filters))
        } else if format == .table, CommandSupport.stdout.isTerminal {
            CommandSupport.stderr.line("\(writer.count) record\(writer.count == 1 ? "" : "s").")
        }
        CommandSupport.reportWarnings(dump)
        return 0
    }
}
