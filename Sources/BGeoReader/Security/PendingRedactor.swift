import Foundation

/// The dump's redactor (`Dump.makeRedactor`), learned on a second connection to the private copy
/// while the caller reads on: learning reads the whole log for its `config` lines (a third of a
/// second on a million rows), and most commands need the redactor only once they write. What
/// the learning warned about is placed where a redactor made first would have put it, and a
/// table it found damaged is salvaged silently by the caller's connection afterwards (as a second
/// scan on one connection would be): the output is the same as with `makeRedactor` up front.
/// A caller that reads the log anyway can do the learning on its own read instead
/// (`init(_:foldedWith:)`, `SecretRowLearning`), so the log is read once.
public final class PendingRedactor {
    /// What the learning gives: the redactor, and the reader of the `config` lines when one was given.
    private struct Learned: Sendable {
        var redactor: Redactor
        var configLines: (any ConfigLineReader)?
    }

    private let dump: Dump
    private let mark: Int
    private var work: ApartRead<Learned>?
    private var resolved: Learned?
    /// Set when the caller's own read of the log learns (`init(_:foldedWith:)`): the `config`
    /// lines' reader to start from (for the learning handed out, or a scan of its own if none is
    /// given back), and whether the learning was handed out.
    private var folding: (configLines: (any ConfigLineReader)?, handedOut: Bool)?

    /// Starts learning `dump`'s secrets (at once, on this thread, when a second thread is not
    /// allowed or no second connection opens; nothing is learned when `enabled` is false).
    public convenience init(_ dump: Dump, enabled: Bool = true) {
        self.init(dump, enabled: enabled, lines: nil)
    }

    /// Starts learning as `init(_:enabled:)` does, handing each `config` line the learning reads
    /// to `configLines` too, on the learning's thread; `configLines(as:)` gives the reader back.
    package convenience init(_ dump: Dump, configLines: sending some ConfigLineReader) {
        self.init(dump, enabled: true, lines: configLines)
    }

    private init(_ dump: Dump, enabled: Bool, lines: sending (any ConfigLineReader)?) {
        self.dump = dump
        mark = dump.warnings.count
        guard enabled else {
            resolved = Learned(redactor: Redactor(enabled: false), configLines: nil)
            return
        }
        startOwnScan(lines: lines)
    }

    /// The learning's own scan, started now: on a second connection beside the caller's reads
    /// (one pass, no more threads: `makeRedactor`'s parts would compete with the scans it runs
    /// beside), else at once on this one, its warnings placed where they stand had it run first.
    private func startOwnScan(lines: (any ConfigLineReader)?) {
        if let reader = ScanRunner.secondConnection(dump) {
            work = ApartRead(reader: reader) { PendingRedactor.learn($0, lines: lines, inParts: false) }
        } else {
            resolved = PendingRedactor.learn(dump, lines: lines, inParts: true)
            dump.placeSecretRowWarnings(since: mark)
        }
    }

    /// Learns from the caller's own read of the log instead of a scan of its own: the read takes
    /// `foldedLearning()`, reads the secret rows beside its own and gives it back (`fold`). Asked
    /// for the redactor without that, it learns by its own scan then. Either way the warnings of
    /// those rows (and the log's damage) stand where a redactor made first would have put them.
    package init(_ dump: Dump, foldedWith configLines: sending (any ConfigLineReader)?) {
        self.dump = dump
        mark = dump.warnings.count
        folding = (configLines, false)
    }

    /// The learning for the caller's read of the log to do (once); nil when this redactor learns
    /// on its own or is known.
    package func foldedLearning() -> SecretRowLearning? {
        guard let folding, !folding.handedOut, resolved == nil else { return nil }
        self.folding?.handedOut = true
        return SecretRowLearning(configLines: folding.configLines)
    }

    /// What the caller's read learned (`SecretRowLearning.finish`ed, its warnings in the dump's
    /// log): the redactor is the state's secrets and those; the warnings of the rows it read for
    /// them, and of the log's damage, move to where this learning began, in the read's order.
    package func fold(_ learning: SecretRowLearning) {
        guard resolved == nil else { return }
        var redactor = dump.stateRedactor(enabled: true)
        redactor.learn(from: learning.secrets.learned)
        ScanRunner.placeAsIfFirst(dump, learning.warnings, at: mark)
        resolved = Learned(redactor: redactor, configLines: learning.configLines)
    }

    /// A redactor already known (no learning).
    public init(_ dump: Dump, resolved redactor: Redactor) {
        self.dump = dump
        mark = dump.warnings.count
        resolved = Learned(redactor: redactor, configLines: nil)
    }

    /// The learning's own scan; with a `config` lines' reader, the one a caller's read does
    /// (`SecretRowLearning`: one rule for which rows go to the reader).
    private static func learn(_ dump: Dump, lines: sending (any ConfigLineReader)?, inParts: Bool) -> Learned {
        guard let lines else { return Learned(redactor: dump.makeRedactor(enabled: true, inParts: inParts)) }
        var learning = SecretRowLearning(configLines: lines)
        let redactor = dump.makeRedactor(learning: &learning)
        return Learned(redactor: redactor, configLines: learning.configLines)
    }

    /// The redactor, once learned (waits for it the first time). Kept apart from `learned`:
    /// a timeline asks for it per event it lists, and copying the whole `Learned` (the config
    /// reader's existential with it) each time showed in its profile.
    public var redactor: Redactor {
        if let learnedRedactor { return learnedRedactor }
        let redactor = learned.redactor
        learnedRedactor = redactor
        return redactor
    }
    private var learnedRedactor: Redactor?

    /// The reader of the `config` lines given to `init(_:configLines:)`, once they are all read
    /// (waits for the learning as `redactor` does); nil when none was given.
    package func configLines<Lines: ConfigLineReader>(as type: Lines.Type) -> Lines? {
        learned.configLines as? Lines
    }

    private var learned: Learned {
        if let resolved { return resolved }
        if let folding, work == nil {
            // No read folded the learning in (it failed, or none was made): a scan of its own now.
            startOwnScan(lines: folding.configLines)
            if let resolved { return resolved }
        }
        let learned = work!.valueAsIfFirst(into: dump, at: mark)
        work = nil
        resolved = learned
        return learned
    }
}
