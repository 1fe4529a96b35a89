import BGeoForensics
import Foundation
import Synchronization

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
    /// Peak RSS is the child's own `VmHWM`, sampled from /proc every 5 ms while it runs: rusage's
    /// ru_maxrss is useless here because glibc's posix_spawn shares this process's memory map until
    /// exec, and Linux then reports this (large) process's high-water mark as the child's.
    func timeCommand(_ path: String, _ arguments: [String], stdoutTo: String? = nil) throws -> CommandRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutTo ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else {
            throw NSError(domain: "bench", code: Int(rc), userInfo: [NSLocalizedDescriptionKey: "cannot run \(path)"])
        }
        // The sampler's peak and the "done" flag, shared with the sampling thread.
        let peak = Mutex((kilobytes: 0, done: false))
        let childPID = pid
        let sampler = Thread {
            while true {
                if peak.withLock({ $0.done }) { return }
                if let status = try? String(contentsOfFile: "/proc/\(childPID)/status", encoding: .utf8),
                   let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                   let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                    peak.withLock { $0.kilobytes = max($0.kilobytes, kb) }
                }
                usleep(5_000)
            }
        }
        sampler.start()
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let kilobytes = peak.withLock { state in
            state.done = true
            return state.kilobytes
        }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return CommandRun(seconds: seconds, status: (status >> 8) & 0xff, peakMB: Double(kilobytes) / 1024, cpu: cpu)
    }

    /// The `bgeo-forensics` binary built next to this one.
    var toolPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("bgeo-forensics").path
    }

    /// The big dump's queued location points as gpsbabel's unicsv (written here, from the dump), for
    /// the gpsbabel baselines; returns the number of points.
    func writeQueuedPointsCSV(to path: String) throws -> Int {
        let dump = try Dump(path: dumpPath)
        var points = 0
        var text = "Latitude,Longitude,Altitude,Date,Time\n"
        text.reserveCapacity(records * 64)
        dump.forEachRecord(QueueQuery(kind: .location)) { r in
            let chars = Array(Timestamp.format(r.time).utf8)  // 2026-07-24T06:00:00.000Z
            let date = String(decoding: chars[0..<10], as: UTF8.self)
            let time = String(decoding: chars[11..<23], as: UTF8.self)
            text += DecimalText.format(r.latitude, places: 7) + "," + DecimalText.format(r.longitude, places: 7) + ","
                + DecimalText.format(r.altitude ?? 0, places: 2) + "," + date + "," + time + "\n"
            points += 1
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return points
    }

    func report(_ section: String, _ lines: [String]) {
        print("== \(section)")
        for line in lines { print("  " + line) }
    }
}

/// One timed child process: wall seconds, exit status, its own peak RSS (MB), CPU seconds (user + system).
struct CommandRun {
    let seconds: Double
    let status: Int32
    let peakMB: Double
    let cpu: Double
}

/// Formats a rate as "1.23 M/s" or "456 k/s".
func rate(_ count: Int, _ seconds: Double) -> String {
    let perSecond = Double(count) / max(seconds, 1e-9)
    if perSecond >= 1e6 { return String(format: "%.2f M/s", perSecond / 1e6) }
    return String(format: "%.0f k/s", perSecond / 1e3)
}
