import BGeoForensics
import Foundation

/// `fleet` over 100 simulated dumps (every scenario, many seeds, 2,000 fixes each — a day or two of
/// a device), with one job and with two, alternately, three rounds each: the speed-up of the best
/// rounds (target ≥ 1.6× on two cores; the machine is shared, so the best round is the one least
/// disturbed), the fleet process's own peak RSS and the largest analysis process's (from
/// `fleet --json`). Then, when pyspark and Java are installed, the Spark job
/// (`integrations/spark/fleet_job.py`) in local[2] on the same dumps: its dumps per second beside
/// `fleet --jobs 2`'s, with and without Spark's start-up. Independent of the big dump.
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
        lines.append(try spark(context, folder: folder, fleetSeconds: walls[2]?.min()))
        try? FileManager.default.removeItem(atPath: folder)
        context.report("Fleet", lines)
    }

    /// One run of the Spark job in local[2] over `folder`'s dumps (rows in Parquet, the query run):
    /// the line saying its rate, or why it was not run.
    static func spark(_ context: BenchContext, folder: String, fleetSeconds: Double?) throws -> String {
        // This file's repository, where the job is (the bench runs from anywhere).
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let job = root + "/integrations/spark/fleet_job.py"
        let probe = try context.timeCommand("/bin/sh", ["-c", "command -v java && python3 -c 'import pyspark'"])
        guard probe.status == 0, FileManager.default.fileExists(atPath: job) else {
            return "Spark local[2]: not run (pyspark or java missing, or no \(job))"
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".db") }.sorted()
        let list = context.scratch + "/fleet-spark.list", out = context.scratch + "/fleet-spark.parquet", log = context.scratch + "/fleet-spark.log"
        try names.map { folder + "/" + $0 + "\n" }.joined().write(toFile: list, atomically: false, encoding: .utf8)
        let run = try context.timeCommand("/usr/bin/env", ["python3", job, "--list", list, "--out", out, "--overwrite", "--master", "local[2]",
                                                           "--binary", context.toolPath], stdoutTo: log)
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: out)
        try? FileManager.default.removeItem(atPath: list)
        try? FileManager.default.removeItem(atPath: log)
        // The job's own time for the analyses and the Parquet, from its summary line.
        guard run.status == 0, let range = said.range(of: #"analysed and written in ([0-9.]+) s"#, options: .regularExpression),
              let stage = Double(said[range].split(separator: " ")[4]) else {
            return "Spark local[2]: the job failed (exit \(run.status))"
        }
        let fleet = fleetSeconds.map { String(format: "; fleet --jobs 2 (best round): %.1f dumps/s", Double(names.count) / $0) } ?? ""
        return String(format: "Spark local[2] (fleet_job.py, one fleet --jobs 1 per partition): %.1f dumps/s for the analyses and the Parquet (%.2f s), %.1f dumps/s with Spark's start-up and the query (%.2f s wall)%@",
                      Double(names.count) / stage, stage, Double(names.count) / run.seconds, run.seconds, fleet)
    }

    /// How much of two cores the machine gives right now: the same CPU-bound loop run twice
    /// one after the other, then twice at once (the machine is shared with other work).
    static func machineParallelism(_ context: BenchContext) throws -> Double {
        let loop = ["python3", "-c", "sum(i * i for i in range(6_000_000))"]
        let sequential = try context.time {
            for _ in 0..<2 { _ = try context.timeCommand("/usr/bin/env", loop) }
        }
        let parallel = context.time {
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
