import Foundation

/// A read of an independent table beside the caller's reading (`ScanRunner`'s **beside** rule):
/// on a second connection and thread when there is one, else in turn on the caller's connection
/// when the value is asked. Either way the read's warnings follow those the caller's connection
/// gave before the value was asked, which is the order of a sequential pass.
package final class BesideRead<Value> {
    private let dump: Dump
    private let apart: ApartRead<Value>?
    private var inTurn: ((Dump) -> Value)?

    /// A read running apart.
    init(_ dump: Dump, apart: ApartRead<Value>) {
        self.dump = dump
        self.apart = apart
    }

    /// A read waiting to be done in turn, on `dump`'s connection.
    init(_ dump: Dump, inTurn read: @escaping (Dump) -> Value) {
        self.dump = dump
        apart = nil
        inTurn = read
    }

    /// Whether the read runs on a second connection (else it waits for `value`).
    package var runsApart: Bool { apart != nil }

    /// The value: waited for, or read now on the caller's connection. Call once.
    package func value() -> Value {
        if let apart { return apart.value(after: dump) }
        guard let read = inTurn else { preconditionFailure("BesideRead.value called twice") }
        inTurn = nil
        return read(dump)
    }

    /// A `Sendable` fact moved out of the value once read apart without a warning (the **clean
    /// stand-in** rule; the rest of the value stays for `value`); nil when read in turn or when
    /// it warned.
    package func takeCleanFact<Fact: Sendable>(_ take: @Sendable (inout Value) -> Fact) -> Fact? {
        apart?.takeCleanFact(take)
    }
}
