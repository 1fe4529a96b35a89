import Foundation

/// The dump's redactor (`Dump.makeRedactor`), learned on a second connection to the private copy
/// while the caller reads on: learning reads the whole log for its `config` lines (a third of a
/// second on a million rows), and most commands need the redactor only once they write. What
/// the learning warned about is placed where a redactor made first would have put it, and a
/// table it found damaged is salvaged silently by the caller's connection afterwards (as a second
/// scan on one connection would be): the output is the same as with `makeRedactor` up front.
public final class PendingRedactor {
    private let dump: Dump
    private let mark: Int
    private var work: ApartRead<Redactor>?
    private var resolved: Redactor?

    /// Starts learning `dump`'s secrets (at once, on this thread, when a second thread is not
    /// allowed or no second connection opens; nothing is learned when `enabled` is false).
    public init(_ dump: Dump, enabled: Bool = true) {
        self.dump = dump
        mark = dump.warnings.count
        guard enabled else {
            resolved = Redactor(enabled: false)
            return
        }
        // Already beside the caller's reading: one pass, no more threads (`makeRedactor`'s parts
        // would compete with the scans it runs beside).
        guard let work = ScanRunner.apart(dump, { $0.makeRedactor(enabled: true, configLines: nil, inParts: false) }) else {
            resolved = dump.makeRedactor()
            return
        }
        self.work = work
    }

    /// A redactor already known (no learning).
    public init(_ dump: Dump, resolved redactor: Redactor) {
        self.dump = dump
        mark = dump.warnings.count
        resolved = redactor
    }

    /// The redactor, once learned (waits for it the first time).
    public var redactor: Redactor {
        if let resolved { return resolved }
        let redactor = work!.valueAsIfFirst(into: dump, at: mark)
        work = nil
        resolved = redactor
        return redactor
    }
}
