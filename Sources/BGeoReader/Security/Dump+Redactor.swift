import Foundation

extension Dump {
    /// A redactor that knows every secret recorded in this dump: `state.config`, `state.auth`,
    /// and every `config` log line.
    public func makeRedactor(enabled: Bool = true) -> Redactor { makeRedactor(enabled: enabled, configLines: nil) }

    /// `makeRedactor`, handing each `config` log line it reads to `configLines` too (none are
    /// read when redaction is off); `inParts`: a big log may be read in two parts at once.
    package func makeRedactor(enabled: Bool, configLines: ((LogEntry) -> Void)?, inParts: Bool = true) -> Redactor {
        var redactor = Redactor(enabled: enabled)
        guard enabled else { return redactor }
        let state = engineState()
        if let config = state.config { redactor.learnSecrets(in: .object(config)) }
        if let auth = state.auth {
            redactor.learnSecrets(in: .object(auth))
            // auth keys are all secrets, whatever they are called.
            for member in auth { if let s = member.value.stringValue { redactor.learn(secret: s) } }
        }
        let query = LogQuery(events: ["config", "auth.refresh.result"])
        // SQLite finds those rows by reading every log row (there is no index on the event): a big
        // log is read in two parts at once (`ScanRunner`'s **two parts** rule) when no caller wants
        // the lines themselves. The secrets learned do not depend on their order.
        if inParts, configLines == nil, let halves = rowHalves(of: "log_entries", minimumRows: 50_000),
           let parts = ScanRunner.inTwoParts(self, first: { Dump.secrets($0, query, rows: halves.first) },
                                             later: { Dump.secrets($0, query, rows: halves.second) },
                                             whole: { _, _ in true }) {
            redactor.learn(from: parts.first)
            redactor.learn(from: parts.later)
            return redactor
        }
        forEachLogEntry(query) { entry in
            if let data = entry.data { redactor.learnSecrets(in: data) }
            if let configLines, entry.event == "config" { configLines(entry) }
        }
        return redactor
    }

    /// The secrets the rows of `query` with ids in `rows` state.
    private static func secrets(_ dump: Dump, _ query: LogQuery, rows: Range<Int64>) -> Redactor {
        var redactor = Redactor()
        dump.forEachLogEntry(query, rows: rows, takenFromCells: nil) { entry in
            if let data = entry.data { redactor.learnSecrets(in: data) }
        }
        return redactor
    }
}
