import BGeoForensics

/// `logs DUMP`: log rows newest first, like the SDK's getLog().
enum LogsCommand: CLICommand {
    static let spec = CommandSpec(
        name: "logs",
        abstract: "List log rows newest first, like getLog() (default limit 500).",
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db dump.")],
        options: [
            OptionSpec("--limit", value: "N", help: "At most N rows (default 500; 0 = all)."),
            OptionSpec("--level", value: "LEVEL", help: "error | warn | info | debug | verbose: that level and more severe."),
            OptionSpec("--event", value: "EVENT", repeatable: true, help: "Only this event; `http.*` matches a prefix."),
            OptionSpec("--src", value: "SRC", help: "native | js."),
            CommandSupport.sinceOption("rows"),
            CommandSupport.untilOption("rows"),
            OptionSpec("--grep", value: "TEXT", help: "Only rows whose message or data contains TEXT (case-insensitive; not empty)."),
            OptionSpec("--status", value: "CODE", repeatable: true, help: "Only rows whose data states this HTTP status (http.response, auth.refresh.result, queue.drop, log.upload); 0 is a network error."),
            OptionSpec("--oldest-first", help: "Oldest first instead."),
            CommandSupport.formatOption(),
            CommandSupport.jsonFormatOption,
            CommandSupport.showSecretsOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let format = try CommandSupport.rowFormat(arguments)
        var level: LogLevel?
        if let text = arguments.value("--level") {
            guard let parsed = LogLevel(text: text) else {
                throw UsageError(message: "--level takes error, warn, info, debug or verbose, not '\(text)'")
            }
            level = parsed
        }
        // Every text contains the empty one, but the search's definition (Foundation's `contains`)
        // finds it nowhere: an empty needle listed no row without a word.
        if arguments.value("--grep")?.isEmpty == true {
            throw UsageError(message: "--grep needs some text to search for; it was empty")
        }
        let limit = try arguments.int("--limit", range: 0...Int.max) ?? 500
        let window = try arguments.timeWindow()
        var query = LogQuery(order: arguments.flag("--oldest-first") ? .oldestFirst : .newestFirst,
                             limit: limit == 0 ? nil : limit, maxLevel: level,
                             events: arguments.all("--event").flatMap { $0.split(separator: ",").map(String.init) },
                             src: arguments.value("--src"), since: window.since,
                             until: window.until, grep: arguments.value("--grep"))
        for text in arguments.all("--status").flatMap({ $0.split(separator: ",").map(String.init) }) {
            guard let code = Int(text), (0...999).contains(code) else {
                throw UsageError(message: "--status takes an HTTP status code such as 401 or 0 (network error), not '\(text)'")
            }
            query.statuses.insert(code)
        }
        let dump = try CommandSupport.openDump(arguments, hashing: .none)
        let redactor = dump.makeRedactor(enabled: !arguments.flag("--show-secrets"))
        let writer = RowWriter(format: format, columns: LogListing.columns, output: CommandSupport.stdout)
        LogListing.write(dump, query: query, redactor: redactor, to: writer)
        writer.finish()
        if writer.count == 0 {
            let filters = CommandSupport.typedFilters(arguments, ["--level", "--event", "--src", "--since", "--until", "--grep", "--status"])
            CommandSupport.stderr.line(EmptyListingNote.log(dump, query: query, filters: filters))
        }
        CommandSupport.reportWarnings(dump)
        return 0
    }
}
