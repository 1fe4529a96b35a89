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
            OptionSpec("--limit", value: "N", help: "At most N records."),
            CommandSupport.formatOption(),
            CommandSupport.jsonFormatOption,
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let format = try CommandSupport.rowFormat(arguments)
        let window = try arguments.timeWindow()
        let query = QueueQuery(
            since: window.since, until: window.until, uuid: arguments.value("--uuid"),
            limit: try arguments.int("--limit", range: 0...Int.max),
            kind: try arguments.choice("--kind", ["location", "geofence"]).flatMap(RecordKind.init(rawValue:)))
        let dump = try CommandSupport.openDump(arguments)
        let redactor = dump.makeRedactor(enabled: !arguments.flag("--show-secrets"))
        let writer = RowWriter(format: format, columns: LocationListing.columns, output: CommandSupport.stdout)
        if query.limit != 0 {
            dump.forEachRecord(query) { record in
                writer.row(cells: LocationListing.cells(record, redactor: redactor),
                           json: LocationListing.json(record, redactor: redactor))
            }
        }
        writer.finish()
        if writer.count == 0 {
            let filters = CommandSupport.typedFilters(arguments, ["--since", "--until", "--uuid", "--kind", "--limit"])
            CommandSupport.stderr.line(query.limit == 0 ? "--limit 0: no records listed." : EmptyListingNote.queue(dump, filters: filters))
        } else if format == .table, CommandSupport.stdout.isTerminal {
            CommandSupport.stderr.line("\(writer.count) record\(writer.count == 1 ? "" : "s").")
        }
        CommandSupport.reportWarnings(dump)
        return 0
    }
}
