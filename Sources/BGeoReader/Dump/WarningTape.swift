import Foundation
import Synchronization

/// Warnings written to a tape in the private working folder, in the order added: where a
/// `WarningLog` keeps the warnings past those it holds. Records are numbered from 0; a range of
/// them is read back by walking the tape (the ranges a log reads are few and read rarely: when
/// it is listed or a past part of it is moved). The file goes when the last holder lets go.
package final class WarningTape: Sendable {
    private struct State {
        var writer: TapeWriter?
        var records = 0
    }
    private let lease: WorkFileLease
    private let state: Mutex<State>

    package init(folder: WorkFolder) throws(WorkFileError) {
        let path = folder.newFile("warnings", extension: "tape")
        lease = WorkFileLease(path: path)
        let writer = try TapeWriter(path: path)
        state = Mutex(State(writer: writer))
    }

    /// Records written so far.
    package var records: Int { state.withLock { $0.records } }

    /// Appends one warning; returns its record number.
    @discardableResult
    package func append(_ warning: DumpWarning) -> Int {
        state.withLock { state in
            guard let writer = state.writer else { return state.records }
            writer.beginRecord()
            warning.write(to: writer)
            writer.endRecord()
            defer { state.records += 1 }
            return state.records
        }
    }

    /// Calls `body` with the warnings of records `range`, in order. Throws when the tape could
    /// not be written or read whole: a listing never silently misses a warning.
    package func read(_ range: Range<Int>, _ body: (DumpWarning) throws(WorkFileError) -> Void) throws(WorkFileError) {
        guard !range.isEmpty else { return }
        try state.withLock { state throws(WorkFileError) in try state.writer?.finish() }
        let reader = try TapeReader(path: lease.path)
        var index = 0
        while index < range.upperBound, var record = reader.next() {
            defer { index += 1 }
            guard index >= range.lowerBound else { continue }
            try body(DumpWarning(from: &record))
        }
        if let failure = reader.failure { throw failure }
        guard index == range.upperBound else {
            throw WorkFileError(path: lease.path, reason: "the tape ends after \(index) of \(range.upperBound) warnings")
        }
    }
}
