import BGeoForensics
import Foundation

/// `report` and `gpx` on the big dump, as processes: seconds, peak memory, output size; beside
/// `gpsbabel` converting the same accepted points from a CSV we write ourselves to GPX.
/// Targets: report < 10 s and < 15 MB; gpx no slower than gpsbabel (wall time).
enum ReportBench {
    static func run(_ context: BenchContext) throws {
        var lines: [String] = []
        let html = context.scratch + "/bench-report.html"
        let report = spawn(context, context.toolPath, ["report", context.dumpPath, "-o", html, "--generated-at", "2026-07-25T00:00:00Z"])
        let htmlBytes = fileSize(html)
        lines.append("report: \(report.text), output \(String(format: "%.2f", Double(htmlBytes) / 1e6)) MB — targets < 10 s, < 15 MB: "
            + (report.wall < 10 && htmlBytes < 15_000_000 && report.status == 0 ? "met" : "NOT met")
            + (report.wall >= 10 && report.cpu < 10 ? " (wall; CPU time \(String(format: "%.2f", report.cpu)) s: the machine is shared)" : ""))

        var gpxRuns: [String: Run] = [:]
        for mode in ["recorded", "replayed"] {
            let out = context.scratch + "/bench-\(mode).gpx"
            let gpx = spawn(context, context.toolPath, ["gpx", context.dumpPath, "-o", out, "--track", mode])
            gpxRuns[mode] = gpx
            lines.append("gpx --track \(mode): \(gpx.text), output \(String(format: "%.1f", Double(fileSize(out)) / 1e6)) MB")
            try? FileManager.default.removeItem(atPath: out)
        }

        // Baseline: the same points as CSV (written here from the dump), converted by gpsbabel.
        guard let gpsbabel = ["/usr/bin/gpsbabel", "/usr/local/bin/gpsbabel"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            lines.append("gpsbabel baseline: skipped (gpsbabel not installed)")
            context.report("Report", lines)
            return
        }
        let csv = context.scratch + "/bench-points.csv"
        var points = 0
        let csvSeconds = try context.time { points = try context.writeQueuedPointsCSV(to: csv) }
        let babelOut = context.scratch + "/bench-gpsbabel.gpx"
        let babel = spawn(context, gpsbabel, ["-i", "unicsv", "-f", csv, "-o", "gpx", "-F", babelOut])
        lines.append("gpsbabel -i unicsv -o gpx on the same \(points) points: \(babel.text), output \(String(format: "%.1f", Double(fileSize(babelOut)) / 1e6)) MB "
            + "(writing its CSV took \(String(format: "%.2f", csvSeconds)) s, not counted)")
        for mode in ["recorded", "replayed"] {
            guard let run = gpxRuns[mode] else { continue }
            // The verdict is on wall time (what the user waits; the replayed track reads the queue and
            // the log on two threads, so its CPU time exceeds its wall time). CPU is shown beside it.
            lines.append("gpx --track \(mode) vs gpsbabel: wall \(String(format: "%.2f", babel.wall / max(run.wall, 1e-9)))× gpsbabel's speed, "
                + "CPU \(String(format: "%.2f", babel.cpu / max(run.cpu, 1e-9)))× — "
                + (run.wall <= babel.wall ? "at least as fast: target met" : "slower: target NOT met"))
        }
        for path in [csv, babelOut, html] { try? FileManager.default.removeItem(atPath: path) }
        context.report("Report", lines)
    }

    /// One finished child process: wall and CPU (user + system) seconds, peak RSS, exit status.
    struct Run {
        var wall: Double
        var cpu: Double
        var peakMB: Double
        var status: Int32
        var text: String {
            String(format: "%.2f s wall, %.2f s CPU, peak %.0f MB, exit %d", wall, cpu, peakMB, status)
        }
    }

    /// Runs a program through the shared timer (its own CPU time and peak RSS).
    static func spawn(_ context: BenchContext, _ path: String, _ arguments: [String]) -> Run {
        guard let run = try? context.timeCommand(path, arguments) else { return Run(wall: 0, cpu: 0, peakMB: 0, status: -1) }
        return Run(wall: run.seconds, cpu: run.cpu, peakMB: run.peakMB, status: run.status)
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
