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
    /// The last URL password a URL record stated, as written (`learnURLPasswords`).
    private var lastURLPassword: [UInt8] = []

    package init() {}

    /// Whether `row` is one the learning reads (`Dump.statesSecrets`), from its cells: a read of
    /// its event cell, and of its data for a URL record.
    package static func reads(_ row: LogRowView) -> Bool {
        row.eventIndex(in: names) != nil || (row.eventIndex(in: urlNames) != nil && row.withData(LogQuery.holdsAt))
    }

    /// Whether `row`'s event is a URL record's (`Dump.urlSecretEvents`).
    package static func isURLRecord(_ row: LogRowView) -> Bool { row.eventIndex(in: urlNames) != nil }

    /// Learns from `row` when it is one the learning reads (a read of its event cell otherwise).
    package mutating func see(_ row: LogRowView) {
        if row.eventIndex(in: LogSecrets.names) != nil {
            guard row.withData({ $0.map(LogSecrets.mayStateSecrets) ?? false }),
                  let text = row.stmt.text(LogColumns.data) else { return }
            learn(fromData: text)
        } else if LogSecrets.isURLRecord(row) {
            see(urlRecord: row)
        }
    }

    /// Learns from a row known to be a URL record (`isURLRecord`), from its cells.
    package mutating func see(urlRecord row: LogRowView) {
        row.withData { learnURLPasswords(in: $0) }
    }

    /// Learns from a row built into an entry, as `see(_:)` from its cells.
    package mutating func see(_ entry: LogEntry) {
        if Dump.secretEvents.contains(entry.event) {
            guard var text = entry.dataText, text.withUTF8(LogSecrets.mayStateSecrets) else { return }
            learn(fromData: text)
        } else if Dump.urlSecretEvents.contains(entry.event) {
            entry.withData { learnURLPasswords(in: $0) }
        }
    }

    /// A URL record (`Dump.urlSecretEvents`) states a secret only as a URL's password: read from
    /// the data's bytes as `URLReducer` reads a URL in JSON text (`\/` a slash), not parsed —
    /// every request holds one where the config's url has user-info, and a parse per request
    /// made `locations` 4× slower there. A backslash escaping anything else may stand inside a
    /// password, whose text only the parse gives: such a document is parsed.
    private mutating func learnURLPasswords(in data: UnsafeBufferPointer<UInt8>?) {
        guard let data, URLReducer.mayHoldUserInfo(data) else { return }
        if LogSecrets.holdsEscapeBesidesSlash(data) {
            guard let document = try? JSONParser.parse(String(decoding: data, as: UTF8.self)) else { return }
            learnURLPasswords(in: document)
        } else {
            URLReducer.forEachPassword(inBytes: data) { password in
                // Every request repeats the config's url: its password is learned once, not per row.
                guard !password.elementsEqual(lastURLPassword) else { return }
                lastURLPassword = Array(password)
                learned.learn(secret: String(decoding: password, as: UTF8.self))
            }
        }
    }

    /// The passwords of the URLs in a parsed URL record's strings.
    private mutating func learnURLPasswords(in value: JSONValue) {
        switch value {
        case .string(let text): for password in URLReducer.passwords(in: text) { learned.learn(secret: password) }
        case .array(let elements): for element in elements { learnURLPasswords(in: element) }
        case .object(let object): for member in object { learnURLPasswords(in: member.value) }
        default: break
        }
    }

    /// Whether JSON text holds a backslash that escapes something other than `/`.
    static func holdsEscapeBesidesSlash(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while let backslash = ByteSearch.firstIndex(of: UInt8(ascii: "\\"), in: bytes, from: i) {
            guard backslash + 1 < bytes.count, bytes[backslash + 1] == UInt8(ascii: "/") else { return true }
            i = backslash + 2
        }
        return false
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
