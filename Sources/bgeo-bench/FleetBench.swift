import BGeoForensics
import Foundation

/// `fleet` over 100 simulated dumps (every scenario, many seeds, 2,000 fixes each — a day or two of
/// a device), with one job and with two, alternately, three rounds each: the speed-up of the best
/// rounds (target ≥ 1.6× on two cores; the machine is shared, so the best round is the one least
/// disturbed), the fleet process's own peak RSS and the largest analysis process's (from
/// `fleet --json`). Independent of the big dump.
enum FleetBench {
    static let dumps = 100
    static let fixesPerDump = 2000
    static let rounds = 3

    static func run(_ context: BenchContext) throws {
        let folder = context.scratch + "/fleet-\(dumps)"
        let scenarios = ["healthy-day", "stranded-refresh", "poison-batch", "teleports", "process-kill", "wal-mode", "legacy-schema",
                         "longping", "damaged-rows"]
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try context.time {
            for i in 0..<dumps {
                let path = folder + "/\(String(format: "%03d", i))-\(scenarios[i % scenarios.count]).db"
                if FileManager.default.fileExists(atPath: path) { continue }
                _ = try context.timeCommand(context.toolPath, ["simulate", "--scenario", scenarios[i % scenarios.count],
                                                               "--seed", String(1000 + i), "--records", String(fixesPerDump), "-o", path])
            }
        }
        var bytes: Int64 = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) { bytes += ReportBench.fileSize(folder + "/" + name) }
        var lines = [String(format: "%d dumps (%.1f MB, every scenario, %d fixes each) simulated in %.1f s", dumps, Double(bytes) / 1e6,
                            fixesPerDump, made)]
        var walls: [Int: [Double]] = [:]
        for _ in 0..<rounds { for jobs in [1, 2] {
            let out = context.scratch + "/fleet-\(jobs).ndjson"
            let summary = context.scratch + "/fleet-\(jobs).json"
            try? FileManager.default.removeItem(atPath: out)
            let run = try context.timeCommand(context.toolPath, ["fleet", folder, "-o", out, "--jobs", String(jobs), "--json"], stdoutTo: summary)
            let counts = (try? JSONParser.parse(String(contentsOfFile: summary, encoding: .utf8)))?.objectValue
            let analysed = counts?["analysed"]?.intValue ?? -1
            let child = counts?["peakChildMB"]?.doubleValue ?? 0
            walls[jobs, default: []].append(run.seconds)
            lines.append(String(format: "fleet --jobs %d: %.2f s wall (%.1f dumps/s), %.2f s CPU (with its analyses), fleet process peak RSS %.0f MB, largest analysis %.0f MB, %d analysed, exit %d",
                                jobs, run.seconds, Double(dumps) / run.seconds, run.cpu, run.peakMB, child, analysed, run.status))
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: summary)
        } }
        if let one = walls[1]?.min(), let two = walls[2]?.min() {
            lines.append(String(format: "speed-up with 2 jobs (best rounds): %.2f× — target ≥ 1.6×: %@", one / two, one / two >= 1.6 ? "met" : "NOT met"))
        }
        lines.append(String(format: "the machine's own parallelism meanwhile: two CPU-bound Python loops at once ran %.2f× as fast as one after the other (2.0 = two free cores)",
                            try machineParallelism(context)))
        try? FileManager.default.removeItem(atPath: folder)
        context.report("Fleet", lines)
    }

    /// How much of two cores the machine gives right now: the same CPU-bound loop run twice
    /// one after the other, then twice at once (the machine is shared with other work).
    static func machineParallelism(_ context: BenchContext) throws -> Double {
        let loop = ["python3", "-c", "sum(i * i for i in range(6_000_000))"]
        let sequential = try context.time {
            for _ in 0..<2 { _ = try context.timeCommand("/usr/bin/env", loop) }
        }
        let parallel = try context.time {
            let group = DispatchGroup()
            for _ in 0..<2 {
                group.enter()
                Thread.detachNewThread {
                    _ = try? context.timeCommand("/usr/bin/env", loop)
                    group.leave()
                }
            }
            group.wait()
        }
        return sequential / max(parallel, 1e-9)
    }
}
