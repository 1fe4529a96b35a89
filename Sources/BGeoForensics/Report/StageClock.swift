import Foundation

/// Stage timings on stderr when BGEO_REPORT_TIMING is set (for tuning the big-dump path of
/// `report` and `gpx`); silent otherwise.
struct StageClock {
    let enabled = ProcessInfo.processInfo.environment["BGEO_REPORT_TIMING"] != nil
    var last = Date()
    mutating func lap(_ stage: String) {
        guard enabled else { return }
        let now = Date()
        FileHandle.standardError.write(Data(String(format: "  %@: %.2f s\n", stage, now.timeIntervalSince(last)).utf8))
        last = now
    }
}

