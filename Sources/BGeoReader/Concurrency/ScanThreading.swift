import Foundation

/// Whether this process reads a dump's tables on two threads at once (`Dump/ScanRunner`).
/// Yes, except where `variable` is set in its environment: `fleet`'s analysis processes, which
/// already keep every core busy with one dump each, where a second scan thread would only compete.
package enum ScanThreading {
    package static let variable = "BGEO_SINGLE_THREAD_SCANS"
    package static let allowsSecondThread = ProcessInfo.processInfo.environment[variable] == nil
}
