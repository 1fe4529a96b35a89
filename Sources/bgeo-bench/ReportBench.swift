import BGeoForensics
import Foundation

/// `report` and `gpx` on the big dump, as processes: seconds, peak memory, output size; beside
/// `gpsbabel` converting the same accepted points from a CSV we write ourselves to GPX.
/// Targets: report < 10 s and < 15 MB; gpx no slower than gpsbabel.
enum ReportBench {
    static func run(_ context: BenchContext) throws {
        var lines: [String] = []
        let html = context.scratch + "/bench-report.html"
        let report = try context.timeCommand(context.toolPath, ["report", context.dumpPath, "-o", html,
                                                                "--generated-at", "2026-07-25T00:00:00Z"])
        let htmlBytes = fileSize(html)
        lines.append("report: \(String(format: "%.2f", report.seconds)) s, exit \(report.status), peak \(String(format: "%.0f", report.peakMB)) MB, "
            + "output \(String(format: "%.2f", Double(htmlBytes) / 1e6)) MB — targets < 10 s, < 15 MB: "
            + (report.seconds < 10 && htmlBytes < 15_000_000 && report.status == 0 ? "met" : "NOT met"))

        var gpxSeconds: [String: Double] = [:]
        for mode in ["recorded", "replayed"] {
            let out = context.scratch + "/bench-\(mode).gpx"
            let gpx = try context.timeCommand(context.toolPath, ["gpx", context.dumpPath, "-o", out, "--track", mode])
            gpxSeconds[mode] = gpx.seconds
            lines.append("gpx --track \(mode): \(String(format: "%.2f", gpx.seconds)) s, exit \(gpx.status), peak \(String(format: "%.0f", gpx.peakMB)) MB, "
                + "output \(String(format: "%.1f", Double(fileSize(out)) / 1e6)) MB")
        }

        // Baseline: the same points as CSV (written here from the dump), converted by gpsbabel.
        guard let gpsbabel = ["/usr/bin/gpsbabel", "/usr/local/bin/gpsbabel"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            lines.append("gpsbabel baseline: skipped (gpsbabel not installed)")
            context.report("Report", lines)
            return
        }
        let csv = context.scratch + "/bench-points.csv"
        var points = 0
        let csvSeconds = try context.time {
            let dump = try Dump(path: context.dumpPath)
            var text = "Latitude,Longitude,Altitude,Date,Time\n"
            text.reserveCapacity(context.records * 64)
            dump.forEachRecord(QueueQuery(kind: .location)) { r in
                let stamp = Timestamp.format(r.time)  // 2026-07-24T06:00:00.000Z
                let chars = Array(stamp.utf8)
                let date = String(decoding: chars[0..<10], as: UTF8.self)
                let time = String(decoding: chars[11..<23], as: UTF8.self)
                text += DecimalText.format(r.latitude, places: 7) + "," + DecimalText.format(r.longitude, places: 7) + ","
                    + DecimalText.format(r.altitude ?? 0, places: 2) + "," + date + "," + time + "\n"
                points += 1
            }
            try text.write(toFile: csv, atomically: false, encoding: .utf8)
        }
        let babelOut = context.scratch + "/bench-gpsbabel.gpx"
        let babel = try context.timeCommand(gpsbabel, ["-i", "unicsv", "-f", csv, "-o", "gpx", "-F", babelOut])
        lines.append("gpsbabel -i unicsv -o gpx on the same \(points) points: \(String(format: "%.2f", babel.seconds)) s, exit \(babel.status), "
            + "peak \(String(format: "%.0f", babel.peakMB)) MB, output \(String(format: "%.1f", Double(fileSize(babelOut)) / 1e6)) MB "
            + "(writing its CSV took \(String(format: "%.2f", csvSeconds)) s, not counted)")
        if let recorded = gpxSeconds["recorded"] {
            lines.append("gpx --track recorded vs gpsbabel: \(String(format: "%.2f", babel.seconds / max(recorded, 1e-9)))× "
                + (recorded <= babel.seconds ? "(at least as fast: target met)" : "(slower: target NOT met)"))
        }
        context.report("Report", lines)
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
