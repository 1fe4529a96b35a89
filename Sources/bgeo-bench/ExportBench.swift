import BGeoForensics
import Foundation

/// `export` on the big dump, as processes (wall, CPU, peak RSS, output size): GeoJSON and KML, the
/// track alone and with one feature per fix; beside `gpsbabel` writing the same queued points (from
/// a CSV we write ourselves) as GeoJSON and KML. Peak RSS is compared with `replay`'s, the trace's
/// own memory: writing must add nothing that grows with the track.
enum ExportBench {
    static func run(_ context: BenchContext) throws {
        var lines: [String] = []
        let replay = ReportBench.spawn(context, context.toolPath, ["replay", context.dumpPath, "--json"])
        lines.append("replay --json (the trace alone, for its memory): \(replay.text)")
        var runs: [String: ReportBench.Run] = [:]
        for (format, mode, points) in [("geojson", "replayed", false), ("geojson", "replayed", true), ("kml", "replayed", true),
                                       ("geojson", "recorded", true), ("kml", "recorded", true)] {
            let out = context.scratch + "/bench-export.\(format)"
            let run = ReportBench.spawn(context, context.toolPath,
                                        ["export", context.dumpPath, "--format", format, "--track", mode, "-o", out] + (points ? ["--points"] : []))
            let label = "export --format \(format) --track \(mode)\(points ? " --points" : "")"
            runs[label] = run
            lines.append("\(label): \(run.text), output \(String(format: "%.1f", Double(ReportBench.fileSize(out)) / 1e6)) MB")
            try? FileManager.default.removeItem(atPath: out)
        }
        let traceMB = replay.peakMB
        let writing = runs.filter { $0.key.contains("replayed") }.map { $0.value.peakMB - traceMB }.max() ?? 0
        lines.append(String(format: "peak RSS beyond replay's (the trace): at most %+.0f MB, with or without a feature per fix", writing))

        guard let gpsbabel = ["/usr/bin/gpsbabel", "/usr/local/bin/gpsbabel"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            lines.append("gpsbabel baseline: skipped (gpsbabel not installed)")
            context.report("Export", lines)
            return
        }
        let csv = context.scratch + "/bench-export-points.csv"
        let points = try context.writeQueuedPointsCSV(to: csv)
        for format in ["geojson", "kml"] {
            let out = context.scratch + "/bench-gpsbabel.\(format)"
            let babel = ReportBench.spawn(context, gpsbabel, ["-i", "unicsv", "-f", csv, "-o", format, "-F", out])
            lines.append("gpsbabel -i unicsv -o \(format) on the same \(points) points: \(babel.text), output \(String(format: "%.1f", Double(ReportBench.fileSize(out)) / 1e6)) MB")
            // gpsbabel writes each point as a feature of its own: compared with ours with --points.
            if let ours = runs["export --format \(format) --track recorded --points"] {
                lines.append(String(format: "  ours (--track recorded --points) vs gpsbabel: %.2f× its speed (wall), %.2f× (CPU)",
                                    babel.wall / max(ours.wall, 1e-9), babel.cpu / max(ours.cpu, 1e-9)))
            }
            try? FileManager.default.removeItem(atPath: out)
        }
        try? FileManager.default.removeItem(atPath: csv)
        context.report("Export", lines)
    }
}
