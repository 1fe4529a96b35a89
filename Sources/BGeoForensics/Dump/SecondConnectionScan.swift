import Foundation

/// Work done through a second connection to the same private copy, on its own thread: how two
/// independent scans (the queue and the log) run at once on a million-row dump. The second
/// connection keeps its own warnings; `finish` appends them after the caller's, the order a
/// sequential read gives.
package final class SecondConnectionScan<Value>: @unchecked Sendable {
    private let reader: Dump
    private let work: BackgroundWork<Value>

    private init(reader: Dump, work: @escaping (Dump) -> Value) {
        self.reader = reader
        let connection = UncheckedBox(reader)
        self.work = BackgroundWork { work(connection.value) }
    }

    /// Starts `work` on a second connection to `dump`'s copy; nil when none can be opened or this
    /// process reads on one thread (the caller then does the work itself, on its own connection).
    package static func start(on dump: Dump, _ work: @escaping (Dump) -> Value) -> SecondConnectionScan? {
        guard ScanThreading.allowsSecondThread, let reader = try? dump.parallelReader() else { return nil }
        return SecondConnectionScan(reader: reader, work: work)
    }

    /// Waits for the work and tells whether it warned of nothing, without taking its value or
    /// its warnings (`finish` does).
    func finishedWithoutWarnings() -> Bool {
        _ = work.wait()
        return reader.warnings.count == 0
    }

    /// Waits for the work; its value, which stays here for `finish`.
    func peek() -> Value { work.wait() }

    /// Waits for the work, appends its warnings to `warnings`, and hands over the value (this
    /// object keeps no copy, so the caller owns it and can mutate it in place).
    package func finish(into warnings: WarningLog) -> Value {
        let value = work.take()
        warnings.add(contentsOf: reader.warnings)
        return value
    }
}
