@testable import BGeoReader
@testable import BGeoForensics

/// Command specs with every shape the generators meet (aliases, values that are files, folders or
/// free words, repeatable and variadic, no positional) and help texts full of what shells and
/// roff treat specially: quotes, brackets, colons, backslashes, `$`, a leading `.` or `'`.
enum CLISpecFixture {
    static let timeline = CommandSpec(
        name: "timeline",
        abstract: "Reconstruct history — and diagnose it.",
        discussion: """
            Reads the log; see --since and --all-gaps.
            .starts with a dot
            'starts with a quote

              A second paragraph: C:\\path, $HOME, `cmd`, [brackets], "quotes", it's … done.
            """,
        positionals: [PositionalSpec("DUMP", help: "A bgeo.db dump (its -wal too).")],
        options: [
            OptionSpec("--since", value: "TIME", help: "Only history at or after TIME: ISO-8601."),
            OptionSpec("--all-gaps", help: "List every gap [default: one line]."),
            OptionSpec("--output", short: "-o", value: "FILE", help: "Output file ('-' for standard output)."),
            OptionSpec("--work", value: "DIR", help: "Working folder (default ./<sha>.resync)."),
            OptionSpec("--set", value: "KEY=VALUE", repeatable: true, help: "Override a key, e.g. a\\b=$x."),
            OptionSpec("--format", value: "FORMAT", help: "text | json (it's [text] by default)."),
        ])

    static let fleet = CommandSpec(
        name: "fleet",
        abstract: "It's a fleet: one row per dump.",
        positionals: [PositionalSpec("PATH", required: false, variadic: true, help: "Dumps and folders.")],
        options: [OptionSpec("--jobs", short: "-j", value: "N", help: "Analyses at once."), OptionSpec("--json", help: "JSON.")])

    static let simulate = CommandSpec(name: "simulate", abstract: "Write dumps.", options: [OptionSpec("--list", help: "List them.")])

    static let all = [timeline, fleet, simulate]
}
