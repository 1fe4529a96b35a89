import Foundation

extension Dump {
    /// A redactor that knows every secret recorded in this dump: `state.config`, `state.auth`,
    /// and every `config` log line.
    public func makeRedactor(enabled: Bool = true) -> Redactor { makeRedactor(enabled: enabled, configLines: nil) }

    /// `makeRedactor`, handing each `config` log line it reads to `configLines` too (none are
    /// read when redaction is off).
    package func makeRedactor(enabled: Bool, configLines: ((LogEntry) -> Void)?) -> Redactor {
        var redactor = Redactor(enabled: enabled)
        guard enabled else { return redactor }
        let state = engineState()
        if let config = state.config { redactor.learnSecrets(in: .object(config)) }
        if let auth = state.auth {
            redactor.learnSecrets(in: .object(auth))
            // auth keys are all secrets, whatever they are called.
            for member in auth { if let s = member.value.stringValue { redactor.learn(secret: s) } }
        }
        forEachLogEntry(LogQuery(events: ["config", "auth.refresh.result"])) { entry in
            if let data = entry.data { redactor.learnSecrets(in: data) }
            if let configLines, entry.event == "config" { configLines(entry) }
        }
        return redactor
    }
}
