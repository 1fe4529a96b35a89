/// A reader of the `config` log lines that the redactor's learning reads anyway
/// (`PendingRedactor.init(_:configLines:)`): it takes each line on the learning's thread, so a
/// caller that needs them (the recorded replay configuration) does not scan the log again.
package protocol ConfigLineReader: Sendable {
    /// Takes one `config` line, in the log's order.
    mutating func add(_ entry: LogEntry)
}
