import Foundation

/// Work done through a second connection to the same private copy, on its own thread: how two
/// independent scans (the queue and the log) run at once on a million-row dump. The connection
/// is the worker's until the work ends; `finish` hands back the value and the connection (its
/// warnings, whether its scan was interrupted), so nothing about the second read is shared while
/// it runs — Swift 6 checks that the work captures nothing the caller still uses.
package final class SecondConnectionScan<Value>: Sendable {
    private let work: BackgroundWork<(value: Value, reader: Dump)>

    private init(work: BackgroundWork<(value: Value, reader: Dump)>) {
        self.work = work
    }

    /// Starts `work` on a second connection to `dump`'s copy; nil when none can be opened or this
    /// process reads on one thread (the caller then does the work itself, on its own connection).
    /// `salvagesOnDamage` false makes the second connection stop at damage (a split read that is
    /// redone in one piece then).
    package static func start(on dump: Dump, salvagesOnDamage: Bool = true,
                              _ work: sending @escaping (Dump) -> Value) -> SecondConnectionScan? {
        guard ScanThreading.allowsSecondThread, let reader = try? dump.parallelReader() else { return nil }
        reader.salvagesOnDamage = salvagesOnDamage
        return SecondConnectionScan(work: BackgroundWork { (work(reader), reader) })
    }

    /// Waits for the work and tells whether it warned of nothing, without taking its value or
    /// its warnings (`finish` does).
    func finishedWithoutWarnings() -> Bool {
        work.inspect { $0.reader.warnings.count == 0 }
    }

    /// Waits for the work and reads a `Sendable` fact of its value, which stays here for `finish`.
    func inspect<Fact: Sendable>(_ fact: @Sendable (Value) -> Fact) -> Fact {
        work.inspect { fact($0.value) }
    }

    /// Waits for the work and hands over its value and the second connection.
    package func finish() -> sending (value: Value, reader: Dump) {
        work.take()
    }

    /// Waits for the work, appends its warnings to `warnings`, and hands over the value (this
    /// object keeps no copy, so the caller owns it and can mutate it in place).
    package func finish(into warnings: WarningLog) -> sending Value {
        let (value, reader) = work.take()
        warnings.add(contentsOf: reader.warnings)
        return value
    }
}
