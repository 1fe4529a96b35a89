import BGeoForensics

/// `report`: not built yet.
enum ReportCommand: CLICommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Write one self-contained HTML report (map, charts, findings, tables).",
        positionals: [PositionalSpec("DUMP", required: false, help: "The dump.")],
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        CommandSupport.stderr.line("report is not available in this build yet.")
        return 1
    }
}
