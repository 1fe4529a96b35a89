import BGeoForensics
import Foundation
import Synchronization

/// `fleet -o -`: the rows on a descriptor (standard output), so that `fleet` is one stage of a
/// pipe — xargs, GNU parallel, Spark — whose next stage reads the rows as they come.
///
/// A pipe has no earlier run to resume, so every input is claimed: identical copies of a dump
/// each get their row, and the output has one row per input however the inputs were split
/// between stages (a run over a file skips a copy already analysed; here that would depend on
/// which stage got which copy). Rows come out in the order of the inputs (`keepsInputOrder`),
/// each in one `write`, so stages sharing one output do not cut into each other's rows as long as
/// the writes stay whole (a pipe promises that only up to PIPE_BUF, 4 KiB: GNU parallel collects
/// each stage's output instead). There is no findings file here.
public final class FleetStream: FleetSink, Sendable {
    private let descriptor: Int32
    /// The first write's failure; held while a row is written, so rows never interleave.
    private let writeFailure = Mutex<String?>(nil)

    public init(descriptor: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
    }

    public func claim(_ key: String) -> Bool { true }

    public func append(row: String, findings: [String]) {
        var bytes = Array(row.utf8)
        bytes.append(10)
        writeFailure.withLock { failure in
            guard failure == nil else { return }
            if let error = bytes.withUnsafeBytes({ FileDescriptorWrite.all(descriptor, $0) }) { failure = String(cString: strerror(error)) }
        }
    }

    public var failure: String? { writeFailure.withLock { $0 } }

    public var keepsInputOrder: Bool { true }
    public var resumedRows: Int { 0 }
    public var droppedRows: Int { 0 }
}
