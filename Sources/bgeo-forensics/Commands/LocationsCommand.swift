import BGeoForensics

/// `locations DUMP`: queue records in drain order, like the SDK's getLocations().
enum LocationsCommand: CLICommand {
    static let spec = CommandSpec(
        name: "locations",
        abstract: "List queued records oldest first (drain order), like getLocations().",
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db or LongPing queue dump.")],
        options: [
            OptionSpec("--since", value: "TIME", help: "Only records at or after TIME (ISO-8601 or YYYY-MM-DD)."),
            OptionSpec("--until", value: "TIME", help: "Only records at or before TIME."),
            OptionSpec("--uuid", value: "UUID", help: "Only the record with this uuid."),
            OptionSpec("--kind", value: "KIND", help: "location | geofence."),
            OptionSpec("--limit", value: "N", help: "At most N records."),
            CommandSupport.formatOption(),
            CommandSupport.jsonFormatOption,
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let format = try CommandSupport.rowFormat(arguments)
        let query = QueueQuery(
            since: try arguments.time("--since"), until: try arguments.time("--until"), uuid: arguments.value("--uuid"),
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
        if format == .table, CommandSupport.stdout.isTerminal || writer.count == 0 {
            CommandSupport.stderr.line("\(writer.count) record\(writer.count == 1 ? "" : "s").")
        }
        CommandSupport.reportWarnings(dump)
        return 0
    }
}
