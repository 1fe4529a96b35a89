import Foundation

/// The secrets the log's rows state (`config` and `auth.refresh.result` lines, and the URLs of
/// requests and refreshes): the one rule for which rows (`Dump.statesSecrets`) and how each is
/// read (its data parsed as `LogEntry.data` parses it). `Dump.makeRedactor`'s own scan learns
/// through it, and so does a command that reads every log row before it needs its redactor
/// (`inspect`), on that scan instead of reading the log a second time.
package struct LogSecrets: Sendable {
    private static let names = Dump.secretEvents.map { Array($0.utf8) }
    private static let urlNames = Dump.urlSecretEvents.map { Array($0.utf8) }
    /// What the rows seen so far state.
    package private(set) var learned = Redactor()

    package init() {}

    /// Whether `row` is one the learning reads (`Dump.statesSecrets`), from its cells: a read of
    /// its event cell, and of its data for a URL record.
    package static func reads(_ row: LogRowView) -> Bool {
        row.eventIndex(in: names) != nil || (row.eventIndex(in: urlNames) != nil && row.withData(LogQuery.holdsAt))
    }

    /// Learns from `row` when its event states secrets (a read of its event cell otherwise).
    package mutating func see(_ row: LogRowView) {
        guard LogSecrets.reads(row),
              row.stmt.withUTF8(LogColumns.data, { $0.map(LogSecrets.mayStateSecrets) ?? false }),
              let text = row.stmt.text(LogColumns.data) else { return }
        learn(fromData: text)
    }

    /// Learns from a row built into an entry, as `see(_:)` from its cells.
    package mutating func see(_ entry: LogEntry) {
        guard entry.withData({ Dump.statesSecrets(event: entry.event, data: $0) }), var text = entry.dataText,
              text.withUTF8(LogSecrets.mayStateSecrets) else { return }
        learn(fromData: text)
    }

    /// Learns what a row's data states, parsed as `LogEntry.data` parses it.
    private mutating func learn(fromData text: String) {
        guard let data = try? JSONParser.parse(text) else { return }
        learned.learnSecrets(in: data)
    }

    /// False when `data` cannot state a secret to learn, so it is not parsed: `learnSecrets`
    /// takes values only under a key that names a secret or holds headers, and no such key can
    /// be written without what `SecretRules.keyNameFilter` looks for (one of those names in any
    /// letter case, a `\u` escape, a byte outside ASCII), nor a URL's password without an `@`
    /// and a `://` (`SecretRules.mayStateSecrets`). A refresh that failed
    /// (`{"success":false,"status":401}`, one per attempt on a stranded dump) is not parsed.
    static func mayStateSecrets(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        SecretRules.mayStateSecrets(bytes: data)
    }

    /// Adds what another part of the same scan learned (the secrets do not depend on order).
    package mutating func add(_ other: LogSecrets) { learned.learn(from: other.learned) }
}
