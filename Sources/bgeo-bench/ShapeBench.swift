import BGeoForensics
import Foundation

/// Issue 27's table: each reading command on dumps of several shapes (`DumpShape.all`), beside the
/// `sqlite3` / `gpsbabel` baseline of the same work measured in the same run, at one size and, with
/// `--growth`, at four times that size (time per fix at 4× over time per fix at 1×, target ≤ 1.15).
enum ShapeBench {
    /// One command of ours and the baseline it is held against.
    struct Pair {
        let name: String
        let arguments: (String, String) -> [String]
        let baseline: String?
        let target: Double?
        /// For `gpx`: the baseline must be this many times slower than ours.
        var speedup = false
    }

    static func pairs(legacy: Bool) -> [Pair] {
        [
            Pair(name: "inspect --json", arguments: { dump, _ in ["inspect", dump, "--json"] }, baseline: "inspect", target: 1.0),
            Pair(name: "timeline --json", arguments: { dump, _ in ["timeline", dump, "--json"] }, baseline: "log", target: 1.0),
            Pair(name: "replay --json", arguments: { dump, _ in ["replay", dump, "--json"] }, baseline: "replay", target: 1.0),
            Pair(name: "locations ndjson", arguments: { dump, _ in ["locations", dump, "--format", "ndjson"] }, baseline: "locations", target: 1.5),
            Pair(name: "logs ndjson", arguments: { dump, _ in ["logs", dump, "--limit", "0", "--format", "ndjson"] }, baseline: "logs", target: 1.5),
            Pair(name: "gpx recorded", arguments: { dump, out in ["gpx", dump, "--track", "recorded", "-o", out + "/shape.gpx"] },
                 baseline: "gpsbabel", target: 4.0, speedup: true),
            Pair(name: "report", arguments: { dump, out in ["report", dump, "-o", out + "/shape.html", "--generated-at", "2026-07-25T00:00:00Z"] },
                 baseline: nil, target: nil),
            Pair(name: "sanitize", arguments: { dump, out in ["sanitize", dump, "-o", out + "/shape-sanitized.db", "--force"] },
                 baseline: "sanitize", target: 2.0),
        ]
    }

    /// The `sqlite3` statements each baseline runs (`-readonly`, except the sanitize rewrite, which
    /// runs on a copy).
    static func baselineSQL(_ name: String, legacy: Bool, output: String) -> String {
        let record = legacy ? "data" : "json"
        let kind = legacy ? "'location'" : "kind"
        let queueScan = """
            SELECT count(*), sum(json_extract(\(record), '$.coords.latitude')), sum(json_extract(\(record), '$.coords.longitude')),
                   sum(json_extract(\(record), '$.coords.accuracy')), sum(json_extract(\(record), '$.odometer')) FROM location_events;
            """
        switch name {
        case "inspect":
            return queueScan + "SELECT count(*), min(ts), max(ts), count(DISTINCT event), sum(uploaded) FROM log_entries;"
        case "log":
            return """
                SELECT count(*), max(ts), count(DISTINCT event), sum(json_extract(data, '$.status')),
                       sum(json_extract(data, '$.delay_s')), count(json_extract(data, '$.timestamp')),
                       sum(json_extract(data, '$.is_moving')) FROM log_entries;
                """
        case "replay":
            return queueScan + """
                SELECT count(*), sum(json_extract(data, '$.latitude')), sum(json_extract(data, '$.longitude')),
                       sum(json_extract(data, '$.accuracy')), count(json_extract(data, '$.uuid')) FROM log_entries WHERE event = 'location';
                """
        case "locations":
            return """
                SELECT json_object('id', id, 'kind', \(kind), 'createdAt', created_at, 'record', json(\(record)))
                FROM location_events ORDER BY id DESC;
                """
        case "logs":
            return """
                SELECT json_object('id', id, 'ts', ts, 'level', level, 'src', src, 'event', event, 'message', message,
                                   'data', json(data), 'uploaded', json(CASE uploaded WHEN 0 THEN 'false' ELSE 'true' END))
                FROM log_entries ORDER BY id DESC;
                """
        case "gpsbabel":
            return """
                SELECT json_extract(\(record), '$.coords.latitude') AS Latitude, json_extract(\(record), '$.coords.longitude') AS Longitude,
                       json_extract(\(record), '$.coords.altitude') AS Altitude, substr(timestamp, 1, 10) AS Date,
                       substr(timestamp, 12, 12) AS Time FROM location_events
                UNION ALL
                SELECT json_extract(data, '$.latitude'), json_extract(data, '$.longitude'), json_extract(data, '$.altitude'),
                       substr(ts, 1, 10), substr(ts, 12, 12) FROM log_entries WHERE event = 'location';
                """
        default:  // sanitize: blank the customer data and the secrets, then write one compact file
            return """
                UPDATE location_events SET \(record) = json_set(\(record), '$.extras', json('{}'));
                UPDATE log_entries SET data = json_set(data, '$.url', 'redacted') WHERE data IS NOT NULL AND json_valid(data);
                VACUUM INTO '\(output)';
                """
        }
    }

    static func run(_ context: BenchContext, shapes: [DumpShape], runs: Int, growth: Bool, keep: Bool) throws {
        let sizes = growth ? [context.records, context.records * 4] : [context.records]
        var perFix: [String: [Int: Double]] = [:]
        for shape in shapes {
            for fixes in sizes {
                let seconds = try measureShape(context, shape, fixes: fixes, runs: runs, keep: keep)
                for (name, value) in seconds { perFix[shape.name + " / " + name, default: [:]][fixes] = value / Double(fixes) }
            }
        }
        guard growth else { return }
        var lines: [String] = []
        for key in perFix.keys.sorted() {
            guard let small = perFix[key]?[sizes[0]], let large = perFix[key]?[sizes[1]], small > 0 else { continue }
            let ratio = large / small
            lines.append(String(format: "%@: time per fix ×%.2f at 4× the fixes — target ≤ 1.15: %@", key, ratio, ratio <= 1.15 ? "met" : "NOT met"))
        }
        context.report("Shapes: growth from \(sizes[0]) to \(sizes[1]) fixes", lines)
    }

    /// Writes one shaped dump, times every pair on it; returns our seconds by command.
    /// `keep`: leave the dump in the scratch folder for a profiler.
    static func measureShape(_ context: BenchContext, _ shape: DumpShape, fixes: Int, runs: Int, keep: Bool) throws -> [String: Double] {
        let out = context.scratch, dump = out + "/shape-\(shape.name)-\(fixes).db"
        let made = try context.time { try shape.write(fixes: fixes, to: dump) }
        defer { if !keep { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: dump + suffix) } } }
        let size = (try? FileManager.default.attributesOfItem(atPath: dump)[.size] as? Int ?? 0) ?? 0
        let counts = (try? Dump(path: dump, hashing: .none)).map { ($0.queueRowCount() ?? 0, $0.logRowCount() ?? 0) } ?? (0, 0)
        var lines = [String(format: "%@ — %@: %d queue rows, %d log rows, %.0f MB, written in %.1f s",
                            shape.name, shape.summary, counts.0, counts.1, Double(size) / 1e6, made)]
        var ours: [String: Double] = [:]
        var peaks: [String] = []
        for pair in pairs(legacy: shape.legacy) {
            let arguments = pair.arguments(dump, out)
            let mine = try ScaleBench.measure(context, runs: runs) { try context.timeCommand(context.toolPath, arguments) }
            ours[pair.name] = mine.seconds
            if mine.peakMB > 150 { peaks.append(pair.name) }
            var line = String(format: "%@: %.2f s, %.0f MB, exit %d", pair.name, mine.seconds, mine.peakMB, mine.status)
            if let baseline = pair.baseline, let target = pair.target {
                let theirs = try baselineSeconds(context, baseline, legacy: shape.legacy, dump: dump, runs: runs)
                if pair.speedup {
                    let speed = theirs / mine.seconds
                    line += String(format: " | baseline %.2f s: %.2f× faster — target ≥ %.1f×: %@", theirs, speed, target, speed >= target ? "met" : "NOT met")
                } else {
                    let ratio = mine.seconds / theirs
                    line += String(format: " | baseline %.2f s: %.2f× — target ≤ %.1f×: %@", theirs, ratio, target, ratio <= target ? "met" : "NOT met")
                }
            }
            lines.append(line)
        }
        for file in ["shape.gpx", "shape.html", "shape-sanitized.db"] { try? FileManager.default.removeItem(atPath: out + "/" + file) }
        lines.append("peak RSS ≤ 150 MB: " + (peaks.isEmpty ? "met by every command" : "NOT met by " + peaks.joined(separator: ", ")))
        context.report("Shape \(shape.name), \(fixes) fixes (median of \(runs))", lines)
        return ours
    }

    static func baselineSeconds(_ context: BenchContext, _ name: String, legacy: Bool, dump: String, runs: Int) throws -> Double {
        let sqlite = "/usr/bin/sqlite3", out = context.scratch
        switch name {
        case "gpsbabel":
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel") else { return .nan }
            let csv = out + "/shape-points.csv", gpx = out + "/shape-gpsbabel.gpx"
            defer { for path in [csv, gpx] { try? FileManager.default.removeItem(atPath: path) } }
            return try ScaleBench.measure(context, runs: runs) {
                let export = try context.timeCommand(sqlite, ["-readonly", "-csv", "-header", dump,
                                                              baselineSQL(name, legacy: legacy, output: "")], stdoutTo: csv)
                let convert = try context.timeCommand("/usr/bin/gpsbabel", ["-i", "unicsv", "-f", csv, "-o", "gpx,gpxver=1.1", "-F", gpx])
                return CommandRun(seconds: export.seconds + convert.seconds, status: export.status | convert.status,
                                  peakMB: max(export.peakMB, convert.peakMB), cpu: export.cpu + convert.cpu)
            }.seconds
        case "sanitize":
            let copy = out + "/shape-rewrite-copy.db", output = out + "/shape-rewrite.db"
            defer { for path in [copy, output] { try? FileManager.default.removeItem(atPath: path) } }
            return try ScaleBench.measure(context, runs: runs) {
                for path in [copy, output] { try? FileManager.default.removeItem(atPath: path) }
                try FileManager.default.copyItem(atPath: dump, toPath: copy)
                return try context.timeCommand(sqlite, [copy, baselineSQL(name, legacy: legacy, output: output)])
            }.seconds
        default:
            let sql = baselineSQL(name, legacy: legacy, output: "")
            return try ScaleBench.measure(context, runs: runs) { try context.timeCommand(sqlite, ["-readonly", dump, sql]) }.seconds
        }
    }
}
