import BGeoReader

/// The dump's redactor and its recorded replay configuration, the one place that decides how
/// they are read. Both read the `config` log lines: the redactor learns from the caller's own read
/// of the complete trace (`TraceBuilder.storedTrace(secrets: pendingRedactor)`, whose scan of the
/// fix lines reads the secret rows beside them: the log is read once), and when the config is
/// `state.config` (known before any line, with no warning of its own) that read gives the config
/// lines too; otherwise the configuration is read on its own scan at once, where a caller reading
/// the two apart read it. Either way the values and warnings are those of the two read apart: the
/// lines' warnings stand where the redactor's learning places its own. A caller that may not need
/// the configuration (an export's recorded track) says so: only the secrets are learned then, on a
/// scan of their own beside its reads, and the configuration is read only if asked.
package final class SecretsAndConfig {
    /// The redactor, learned by the caller's read of the trace (or beside its reads).
    package let pendingRedactor: PendingRedactor
    /// The recorded configuration as known before its lines are read: the same config, so the
    /// same filter, as `configuration`, without the notes its lines may add (for a replay that
    /// starts while they are read: `LiveSummary`).
    package let startingConfiguration: ReplayConfiguration
    private var known: ReplayConfiguration?
    /// Set when the configuration is read only if asked (on its own scan, when first asked).
    private let askedOf: Dump?

    /// The learning for a caller that reads the complete trace with `pendingRedactor` (none when
    /// `showSecrets`); reads the configuration now unless that read gives its lines. Asked for
    /// the redactor without such a read, it learns by a scan of its own then.
    /// `configurationWanted` false: the caller reads no complete trace and may never ask for the
    /// configuration, so only the secrets are learned, beside its reads, and the configuration is
    /// read when (if) it is asked (`startingConfiguration` is then the state's config alone).
    package init(_ dump: Dump, showSecrets: Bool, configurationWanted: Bool = true) {
        if !configurationWanted {
            pendingRedactor = PendingRedactor(dump, enabled: !showSecrets)
            startingConfiguration = ReplayConfiguration.ConfigLines(dump.recordedConfig()).configuration
            askedOf = dump
        } else if SecretsAndConfig.sharesTheScan(dump, showSecrets: showSecrets) {
            let lines = ReplayConfiguration.ConfigLines(dump.recordedConfig())
            startingConfiguration = lines.configuration
            pendingRedactor = PendingRedactor(dump, foldedWith: lines)
            askedOf = nil
        } else {
            pendingRedactor = showSecrets ? PendingRedactor(dump, enabled: false) : PendingRedactor(dump, foldedWith: nil)
            let configuration = ReplayConfiguration.recorded(from: dump)
            startingConfiguration = configuration
            known = configuration
            askedOf = nil
        }
    }

    /// A redactor already known (an API caller's); the configuration is read when asked.
    package init(_ dump: Dump, resolved redactor: Redactor) {
        pendingRedactor = PendingRedactor(dump, resolved: redactor)
        startingConfiguration = ReplayConfiguration.ConfigLines(dump.recordedConfig()).configuration
        askedOf = dump
    }

    /// Both, learned now on this thread (for a caller that needs them before it reads anything
    /// else: the report's live replay).
    package static func learnedNow(_ dump: Dump, showSecrets: Bool) -> (redactor: Redactor, configuration: ReplayConfiguration) {
        guard sharesTheScan(dump, showSecrets: showSecrets) else {
            return (dump.makeRedactor(enabled: !showSecrets), ReplayConfiguration.recorded(from: dump))
        }
        var learning = SecretRowLearning(configLines: ReplayConfiguration.ConfigLines(dump.recordedConfig()))
        let redactor = dump.makeRedactor(learning: &learning)
        // The reader given is the one handed back; were it not, the configuration is read on its own.
        let configuration = learning.configLines(as: ReplayConfiguration.ConfigLines.self)?.configuration
            ?? ReplayConfiguration.recorded(from: dump)
        return (redactor, configuration)
    }

    /// The redactor (waits for the learning the first time).
    package var redactor: Redactor { pendingRedactor.redactor }

    /// The recorded configuration (`ReplayConfiguration.recorded`); when the redactor's learning
    /// reads its lines, this is known once the learning is (as `redactor`).
    package var configuration: ReplayConfiguration {
        if let known { return known }
        if let dump = askedOf {
            let configuration = ReplayConfiguration.recorded(from: dump)
            known = configuration
            return configuration
        }
        let configuration = pendingRedactor.configLines(as: ReplayConfiguration.ConfigLines.self)!.configuration
        known = configuration
        return configuration
    }

    /// The rule: one scan serves both when the redactor reads the lines and the configuration is
    /// known before any line.
    private static func sharesTheScan(_ dump: Dump, showSecrets: Bool) -> Bool {
        !showSecrets && dump.engineState().config != nil
    }
}
