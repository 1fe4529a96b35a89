import Foundation

extension Dump {
    /// A redactor that knows every secret recorded in this dump: `state.config`, `state.auth`,
    /// and every `config` log line.
    public func makeRedactor(enabled: Bool = true) -> Redactor { makeRedactor(enabled: enabled, inParts: true) }

    /// `makeRedactor`; `inParts`: a big log may be read in two parts at once. (A caller that wants
    /// the `config` lines too learns by `SecretRowLearning`, which hands them on.)
    package func makeRedactor(enabled: Bool, inParts: Bool) -> Redactor {
        var redactor = stateRedactor(enabled: enabled)
        guard enabled else { return redactor }
        let query = Dump.secretRowsQuery
        // SQLite finds those rows by reading every log row (there is no index on the event): a big
        // log is read in two parts at once (`ScanRunner`'s **two parts** rule). The secrets
        // learned do not depend on their order.
        if inParts, let halves = rowHalves(of: "log_entries", minimumRows: 50_000),
           let parts = ScanRunner.inTwoParts(self, first: { Dump.secrets($0, query, rows: halves.first) },
                                             later: { Dump.secrets($0, query, rows: halves.second) },
                                             whole: { _, _ in true }) {
            redactor.learn(from: parts.first)
            redactor.learn(from: parts.later)
            return redactor
        }
        // One pass, from the rows' cells as each part reads them: no entry built per row.
        redactor.learn(from: Dump.secrets(self, query, rows: nil))
        return redactor
    }

    /// `makeRedactor` by `learning` (one pass over the secret rows, no parts): its rule hands each
    /// `config` line to its reader too, as on a caller's own read of the log.
    package func makeRedactor(learning: inout SecretRowLearning) -> Redactor {
        forEachLogEntry(Dump.secretRowsQuery) { learning.see($0) }
        var redactor = stateRedactor(enabled: true)
        redactor.learn(from: learning.secrets.learned)
        return redactor
    }

    /// The log events whose data states secrets: rows the learning reads (`LogSecrets` reads
    /// the same ones from another scan).
    package static let secretEvents = ["config", "auth.refresh.result"]

    /// The SDK's records of the URLs it called (`http.request`, `auth.refresh`: data `{url, …}`).
    /// They state a secret only as a URL's password (`https://user:password@host`), which needs
    /// an `@`: the learning reads those whose data holds one (`LogQuery.eventsHoldingAt`), so a
    /// password the log's config lines no longer show (rotated out with the rows' cap) is still
    /// learned where a request repeats it, and the other rows (one per upload attempt) cost
    /// SQLite a byte search, not a read.
    package static let urlSecretEvents = ["auth.refresh", "http.request"]

    /// The rows the learning reads: `secretEvents`, and `urlSecretEvents` holding an `@`.
    package static var secretRowsQuery: LogQuery {
        var query = LogQuery(events: secretEvents)
        query.eventsHoldingAt = urlSecretEvents
        return query
    }

    /// Whether a row of `event` whose data is `data` is one the learning reads: the one test
    /// behind `secretRowsQuery` for a row already read (`LogSecrets`, the warnings' placing).
    package static func statesSecrets(event: String, data: UnsafeBufferPointer<UInt8>?) -> Bool {
        secretEvents.contains(event) || (urlSecretEvents.contains(event) && LogQuery.holdsAt(data))
    }

    /// A redactor that knows the secrets the engine's state holds (`state.config`, `state.auth`),
    /// not yet the log's: `makeRedactor` learns the log's after, `LogSecrets` beside a scan.
    package func stateRedactor(enabled: Bool) -> Redactor {
        var redactor = Redactor(enabled: enabled)
        guard enabled else { return redactor }
        let state = engineState()
        if let config = state.config { redactor.learnSecrets(in: .object(config)) }
        if let auth = state.auth {
            redactor.learnSecrets(in: .object(auth))
            // auth keys are all secrets, whatever they are called.
            for member in auth { if let s = member.value.stringValue { redactor.learn(secret: s) } }
        }
        return redactor
    }

    /// Moves the warnings found since `mark` on log rows that state secrets to `mark`: where the
    /// secrets' own scan, made first, would have put them (`PendingRedactor`'s rule), for a
    /// command that learned them on a later scan instead (`LogSecrets`). The log's damage goes
    /// there too: that scan reads the whole table, so it is the one that would have met the
    /// damage first (its warning states where whole rows stop, whichever scan meets it:
    /// `stopOfWholeRows`). One look-up by id per warned log row (a few, but as many as a damaged
    /// log has bad rows).
    package func placeSecretRowWarnings(since mark: Int) {
        guard let made = madeBySecretsScan() else { return }
        ScanRunner.placeAsIfFirst(self, since: mark, madeByFoldedRead: made)
    }

    /// Of `warnings` (this connection's), those the secrets' own scan would have made, in their
    /// order: for a scan on another connection that learned the secrets (`SecretRowLearning`).
    package func madeBySecretsScan(among warnings: WarningLog) -> [DumpWarning] {
        guard let made = madeBySecretsScan() else { return [] }
        var kept: [DumpWarning] = []
        // A tape that cannot be read back leaves those warnings where they are (their order only).
        try? warnings.forEachKept(from: 0) { if made($0) { kept.append($0) } }
        return kept
    }

    /// Whether a warning is one the secrets' own scan makes: on a log row that states secrets, or
    /// the log's damage stop. Nil without a log.
    private func madeBySecretsScan() -> ((DumpWarning) -> Bool)? {
        guard layout.hasLog, let stmt = try? database.prepare("SELECT event, data FROM log_entries WHERE id = ?") else { return nil }
        return { warning in
            guard warning.table == "log_entries" else { return false }
            if Dump.isScanStop(warning) { return true }
            guard let rowId = warning.rowId, (try? stmt.bind([.integer(rowId)])) != nil,
                  (try? stmt.step()) == true, let event = stmt.text(0) else { return false }
            return stmt.withUTF8(1) { Dump.statesSecrets(event: event, data: $0) }
        }
    }

    /// The secrets the rows of `query` with ids in `rows` (all when nil) state.
    private static func secrets(_ dump: Dump, _ query: LogQuery, rows: Range<Int64>?) -> Redactor {
        var secrets = LogSecrets()
        dump.forEachLogEntry(query, rows: rows, takenFromCells: { row in
            secrets.see(row)
            return true
        }) { _ in }
        return secrets.learned
    }
}
