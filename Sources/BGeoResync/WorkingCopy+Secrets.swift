import BGeoForensics
import Foundation

/// The token pair rotated by refreshes and the secrets a run learned, kept for every later command.
extension WorkingCopy {
    /// The token pair last stored (rotated by a refresh), if any.
    public func storedTokens() throws -> TokenRefresh.Tokens? {
        let stmt = try database.prepare("SELECT key, value FROM auth")
        var tokens = TokenRefresh.Tokens(accessToken: nil, refreshToken: nil)
        var any = false
        while try stmt.step() {
            any = true
            switch stmt.text(0) {
            case "accessToken": tokens.accessToken = stmt.text(1)
            case "refreshToken": tokens.refreshToken = stmt.text(1)
            default: break
            }
        }
        return any ? tokens : nil
    }

    func storeTokens(_ tokens: TokenRefresh.Tokens) throws {
        let stmt = try database.prepare("INSERT OR REPLACE INTO auth(key, value) VALUES (?, ?)")
        try stmt.run([.text("accessToken"), tokens.accessToken.map { .text($0) } ?? .null])
        try stmt.run([.text("refreshToken"), tokens.refreshToken.map { .text($0) } ?? .null])
        try stmt.run([.text("rotated_at"), .text(Timestamp.format(Date().timeIntervalSince1970))])
    }

    /// Secrets a run learned that the dump itself does not hold (tokens issued by a refresh,
    /// tokens and keys given with `--set` / `--config`): kept here so that every later command
    /// on this working copy redacts them too, whatever it prints. The copy already holds the
    /// rotated pair itself (`auth`), so this adds no new exposure.
    public func learnedSecrets() throws -> [String] {
        let stmt = try database.prepare("SELECT value FROM secrets ORDER BY value")
        var out: [String] = []
        while try stmt.step() { if let value = stmt.text(0) { out.append(value) } }
        return out
    }

    /// Teaches `redactor` every secret this working copy knows: those learned by earlier runs and
    /// the stored (rotated) token pair. Every command that reads the copy calls it first.
    public func learnSecrets(into redactor: inout Redactor) throws {
        for secret in try learnedSecrets() { redactor.learn(secret: secret) }
        if let stored = try storedTokens() {
            for token in [stored.accessToken, stored.refreshToken].compactMap({ $0 }) { redactor.learn(secret: token) }
        }
    }

    /// Records every secret `redactor` knows beyond what `dump` (a redactor built from the dump)
    /// knows. In the caller's transaction when there is one.
    func remember(secretsOf redactor: Redactor, beyond dump: Redactor) throws {
        let stmt = try cached("INSERT OR IGNORE INTO secrets(value) VALUES (?)")
        for secret in redactor.knownSecrets.subtracting(dump.knownSecrets).sorted() { try stmt.run([.text(secret.text)]) }
    }

    /// `remember(secretsOf:beyond:)` in a transaction of its own.
    public func rememberSecrets(of redactor: Redactor, beyond dump: Redactor) throws {
        try transaction { try remember(secretsOf: redactor, beyond: dump) }
    }
}

extension Redactor {
    /// Same switch and same learned secrets: both redact any text identically.
    func redactsLike(_ other: Redactor) -> Bool {
        enabled == other.enabled && knownSecrets == other.knownSecrets
    }
}
