/// The redactor's learning of the log (`PendingRedactor`'s scan: `Dump.secretRowsQuery`'s rows,
/// and the `config` lines a caller wants too) done by a read of the
/// log that a command makes anyway: replay's scan of the fix lines reads them beside its own rows
/// instead of the log being read a second time for them. The rows are read as that scan reads
/// them — the same filters, the same warnings (their data checked as `LogQuery.validatesData`
/// checks it), built into entries — so what is learned is what the scan of its own learns.
package struct SecretRowLearning: Sendable {
    /// What the rows seen so far state.
    package private(set) var secrets = LogSecrets()
    /// The reader the `config` lines go to as well, when the caller wants them.
    package private(set) var configLines: (any ConfigLineReader)?
    /// The warnings the learning's own scan would have made, in the read's order (`finish`).
    package private(set) var warnings: [DumpWarning] = []

    package init(configLines: (any ConfigLineReader)?) {
        self.configLines = configLines
    }

    /// The reader handed in, back as its own type (nil when none was, or of another type).
    package func configLines<Lines: ConfigLineReader>(as type: Lines.Type) -> Lines? {
        configLines as? Lines
    }

    /// Adds the rows it reads to a filtered scan's own (`Dump.secretRowsQuery`'s rows).
    package static func addRows(to query: inout LogQuery) {
        query.events = (query.events + Dump.secretEvents).sorted()
        query.eventsHoldingAt = Dump.urlSecretEvents
    }

    /// Whether `row` is one it reads: the scan then checks its data (`LogRowView.checkData`, as
    /// the learning's own validating scan does) and hands it over built into an entry (`see`).
    package static func reads(_ row: LogRowView) -> Bool { LogSecrets.reads(row) }

    /// Ends the learning on the read's connection `reader`: keeps the warnings of the rows it
    /// read (and of the log's damage), for `PendingRedactor.fold` to place.
    package mutating func finish(on reader: Dump) {
        warnings = reader.madeBySecretsScan(among: reader.warnings)
    }

    /// Learns from a URL record it reads from the row's cells and returns true; false for a row
    /// to be built into an entry and seen (`see`): a `config` line may go on to its reader, and
    /// a URL record needs none of an entry's texts (one per upload attempt where the config's url
    /// has user-info).
    package mutating func learnFromCells(_ row: LogRowView) -> Bool {
        guard LogSecrets.isURLRecord(row) else { return false }
        secrets.see(urlRecord: row)
        return true
    }

    /// Learns from a row it reads, built into an entry.
    package mutating func see(_ entry: LogEntry) {
        secrets.see(entry)
        if entry.event == "config" { configLines?.add(entry) }
    }
}
