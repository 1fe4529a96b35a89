import BGeoForensics
import Foundation

/// What every benchmark section gets: the big dump, a scratch folder, and how to time and report.
struct BenchContext {
    /// A 1,000,000-record simulated dump (queue + log), shared by all sections.
    let dumpPath: String
    let scratch: String
    let records: Int

    /// Wall-clock seconds of `body`.
    func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Runs an external command, returning (seconds, exit code, peak RSS of the child in MB).
    func timeCommand(_ path: String, _ arguments: [String], stdoutTo: String? = nil) throws -> (seconds: Double, status: Int32, peakMB: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let stdoutTo {
            FileManager.default.createFile(atPath: stdoutTo, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: stdoutTo)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(process.processIdentifier, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitCode = (status >> 8) & 0xff
        return (seconds, exitCode, Double(usage.ru_maxrss) / 1024)
    }

    /// The `bgeo-forensics` binary built next to this one.
    var toolPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("bgeo-forensics").path
    }

    func report(_ section: String, _ lines: [String]) {
        print("== \(section)")
        for line in lines { print("  " + line) }
    }
}

/// Formats a rate as "1.23 M/s" or "456 k/s".
func rate(_ count: Int, _ seconds: Double) -> String {
    let perSecond = Double(count) / max(seconds, 1e-9)
    if perSecond >= 1e6 { return String(format: "%.2f M/s", perSecond / 1e6) }
    return String(format: "%.0f k/s", perSecond / 1e3)
}
