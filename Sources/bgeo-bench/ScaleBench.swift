import BGeoForensics
import Foundation

/// Issue 12's table: every reading command on the big dump, each run `runs` times (median wall
/// time, highest peak RSS of the runs), beside the `sqlite3` / `gpsbabel` baselines measured the
/// same way in the same run, with the ratios and the memory bound checked. Run it at two sizes
/// (`--records 1000000`, `--records 4000000`) to see how memory grows.
enum ScaleBench {
    struct Measured {
        var seconds: Double
        var peakMB: Double
        var status: Int32
    }

    /// Runs `command` `runs` times: the median wall time, the highest peak.
    static func measure(_ context: BenchContext, runs: Int, _ body: () throws -> CommandRun) rethrows -> Measured {
        var times: [Double] = [], peak = 0.0, status: Int32 = 0
        for _ in 0..<max(runs, 1) {
            let run = try body()
            times.append(run.seconds)
            peak = max(peak, run.peakMB)
            if run.status != 0 { status = run.status }
        }
        times.sort()
        return Measured(seconds: times[times.count / 2], peakMB: peak, status: status)
    }

    static func run(_ context: BenchContext, runs: Int) throws {
        let tool = context.toolPath, dump = context.dumpPath, out = context.scratch
        var lines: [String] = []
        var ours: [String: Measured] = [:]
        let commands: [(name: String, arguments: [String])] = [
            ("inspect --json", ["inspect", dump, "--json"]),
            ("timeline --json", ["timeline", dump, "--json"]),
            ("replay --json", ["replay", dump, "--json"]),
            ("replay --json --fixes", ["replay", dump, "--json", "--fixes"]),
            ("replay --compare (PassThrough)", ["replay", dump, "--compare", "--set", "locationFilterPolicy=PassThrough"]),
            ("gpx --track replayed", ["gpx", dump, "-o", out + "/scale-replayed.gpx"]),
            ("gpx --track recorded", ["gpx", dump, "-o", out + "/scale-recorded.gpx", "--track", "recorded"]),
            ("gpx --track raw", ["gpx", dump, "-o", out + "/scale-raw.gpx", "--track", "raw"]),
            ("export geojson replayed --points", ["export", dump, "--format", "geojson", "--points", "-o", out + "/scale.geojson"]),
            ("export kml recorded", ["export", dump, "--format", "kml", "--track", "recorded", "-o", out + "/scale.kml"]),
            ("report", ["report", dump, "-o", out + "/scale-report.html", "--generated-at", "2026-07-25T00:00:00Z"]),
            ("logs --json", ["logs", dump, "--json"]),
        ]
        for (name, arguments) in commands {
            ours[name] = try measure(context, runs: runs) { try context.timeCommand(tool, arguments) }
            let m = ours[name]!
            lines.append(String(format: "%@: %.2f s (median of %d), peak RSS %.0f MB, exit %d", name, m.seconds, runs, m.peakMB, m.status))
        }
        // `locations` lists every record as a table: slow, and as flat in memory as `logs`; once.
        let locations = try measure(context, runs: 1) { try context.timeCommand(tool, ["locations", dump, "--json"]) }
        ours["locations --json"] = locations
        lines.append(String(format: "locations --json: %.2f s (1 run), peak RSS %.0f MB, exit %d", locations.seconds, locations.peakMB, locations.status))
        for file in ["scale-replayed.gpx", "scale-recorded.gpx", "scale-raw.gpx", "scale.geojson", "scale.kml", "scale-report.html"] {
            try? FileManager.default.removeItem(atPath: out + "/" + file)
        }

        // Baselines, on one copy of the dump (the sqlite3 CLI opens read-write).
        let copy = out + "/scale-sqlite3-copy.db"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: dump, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let sqlite = "/usr/bin/sqlite3"
        _ = try context.timeCommand(sqlite, [copy, "SELECT count(*) FROM sqlite_master"])
        let queueScan = try measure(context, runs: runs) {
            try context.timeCommand(sqlite, [copy, """
                SELECT count(*), sum(json_extract(json, '$.coords.latitude')), sum(json_extract(json, '$.coords.longitude')),
                       sum(json_extract(json, '$.coords.accuracy')), sum(json_extract(json, '$.odometer')) FROM location_events;
                """])
        }
        let logScan = try measure(context, runs: runs) {
            try context.timeCommand(sqlite, [copy, """
                SELECT count(*), max(ts), count(DISTINCT event), sum(json_extract(data, '$.status')),
                       sum(json_extract(data, '$.delay_s')), count(json_extract(data, '$.timestamp')),
                       sum(json_extract(data, '$.is_moving')) FROM log_entries;
                """])
        }
        let queueAndLines = try measure(context, runs: runs) {
            try context.timeCommand(sqlite, [copy, """
                SELECT count(*), sum(json_extract(json, '$.coords.latitude')), sum(json_extract(json, '$.coords.longitude')),
                       sum(json_extract(json, '$.coords.accuracy')), sum(json_extract(json, '$.odometer')) FROM location_events;
                SELECT count(*), sum(json_extract(data, '$.latitude')), sum(json_extract(data, '$.longitude')),
                       sum(json_extract(data, '$.accuracy')), count(json_extract(data, '$.uuid')) FROM log_entries WHERE event = 'location';
                """])
        }
        let csv = out + "/scale-points.csv", babelOut = out + "/scale-gpsbabel.gpx"
        var gpsbabel = Measured(seconds: 0, peakMB: 0, status: -1)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel") {
            gpsbabel = try measure(context, runs: runs) {
                let export = try context.timeCommand(sqlite, ["-csv", "-header", copy, """
                    SELECT json_extract(json, '$.coords.latitude') AS Latitude, json_extract(json, '$.coords.longitude') AS Longitude,
                           json_extract(json, '$.coords.altitude') AS Altitude, substr(timestamp, 1, 10) AS Date,
                           substr(timestamp, 12, 12) AS Time FROM location_events WHERE kind = 'location' ORDER BY id;
                    """], stdoutTo: csv)
                let convert = try context.timeCommand("/usr/bin/gpsbabel", ["-i", "unicsv", "-f", csv, "-o", "gpx,gpxver=1.1", "-F", babelOut])
                return CommandRun(seconds: export.seconds + convert.seconds, status: export.status | convert.status,
                                  peakMB: max(export.peakMB, convert.peakMB), cpu: export.cpu + convert.cpu)
            }
        }
        for path in [csv, babelOut] { try? FileManager.default.removeItem(atPath: path) }
        lines.append(String(format: "baseline sqlite3 json_extract scan of the queue: %.2f s, peak %.0f MB", queueScan.seconds, queueScan.peakMB))
        lines.append(String(format: "baseline sqlite3 json_extract scan of log_entries: %.2f s, peak %.0f MB", logScan.seconds, logScan.peakMB))
        lines.append(String(format: "baseline sqlite3 scan of the queue + the location lines: %.2f s, peak %.0f MB", queueAndLines.seconds, queueAndLines.peakMB))
        lines.append(String(format: "baseline sqlite3 CSV export + gpsbabel unicsv → GPX 1.1: %.2f s, peak %.0f MB, exit %d",
                            gpsbabel.seconds, gpsbabel.peakMB, gpsbabel.status))

        func verdict(_ met: Bool) -> String { met ? "met" : "NOT met" }
        let ratios: [(String, Double, String)] = [
            ("inspect --json", ours["inspect --json"]!.seconds / queueScan.seconds, "≤ 1.0× the queue scan"),
            ("timeline --json", ours["timeline --json"]!.seconds / logScan.seconds, "≤ 1.2× the log scan"),
            ("replay --json", ours["replay --json"]!.seconds / queueAndLines.seconds, "≤ 1.5× the queue + location lines scan"),
        ]
        for (name, ratio, target) in ratios {
            let limit = name.hasPrefix("inspect") ? 1.0 : name.hasPrefix("timeline") ? 1.2 : 1.5
            lines.append(String(format: "%@: %.2f× — target %@: %@", name, ratio, target, verdict(ratio <= limit)))
        }
        for mode in ["replayed", "recorded", "raw"] {
            let speed = gpsbabel.seconds / ours["gpx --track \(mode)"]!.seconds
            lines.append(String(format: "gpx --track %@: %.2f× faster than sqlite3 + gpsbabel — target ≥ 3×: %@", mode, speed, verdict(speed >= 3)))
        }
        let report = ours["report"]!.seconds
        lines.append(String(format: "report: %.2f s — target ≤ 6 s at 1 M records: %@", report, context.records == 1_000_000 ? verdict(report <= 6) : "(not the 1 M dump)"))
        let over = ours.filter { $0.value.peakMB >= 150 }.map(\.key).sorted()
        lines.append("peak RSS < 150 MB: " + (over.isEmpty ? "met by every command" : "NOT met by " + over.joined(separator: ", ")))
        context.report("Scale (\(context.records) records, median of \(runs))", lines)
    }
}
