import BGeoForensics
import Foundation

/// Replay on the big dump: the pipeline alone on in-memory fixes (per policy), then end to end
/// (open + TraceBuilder + run), the CLI as a process, beside `sqlite3` extracting the same
/// fields with json_extract from a copy of the dump.
enum ReplayBench {
    static func run(_ context: BenchContext) throws {
        var lines: [String] = []

        // 1. Pipeline alone, on a synthetic walk with planted teleports and poor fixes, so every
        //    branch runs (the simulated dump is a clean line).
        let synthetic = syntheticFixes(count: context.records)
        for config in [FilterConfig(), FilterConfig(policy: .adjust), FilterConfig(policy: .passThrough),
                       FilterConfig(kalmanProfile: .aggressive, odometerAccuracyThreshold: 15)] {
            let (seconds, checksum) = bestPipelineTime(synthetic, config: config, repeats: 5)
            lines.append("pipeline alone, \(config.policy.rawValue)\(config.odometerAccuracyThreshold > 0 ? " +odometer gate" : ""): "
                + "\(rate(synthetic.count, seconds)) (\(String(format: "%.3f", seconds)) s for \(synthetic.count) fixes; checksum \(checksum))")
        }
        let engineSeconds = context.time { _ = ReplayEngine.run(fixes: synthetic, config: FilterConfig()) }
        lines.append("ReplayEngine.run (pipeline + decisions array + totals): \(rate(synthetic.count, engineSeconds))")

        // 2. End to end from the dump.
        var dump: Dump?
        let openSeconds = try context.time { dump = try Dump(path: context.dumpPath) }
        guard let dump else { return }
        var trace = Trace(fixes: [])
        let traceSeconds = context.time { trace = TraceBuilder.completeTrace(dump: dump) }
        var result: ReplayResult?
        let runSeconds = context.time { result = ReplayEngine.run(trace: trace, config: FilterConfig(), source: "bench") }
        let fixes = trace.fixes.count
        lines.append("end to end on \(fixes) fixes: open+copy+hash \(String(format: "%.2f", openSeconds)) s, "
            + "TraceBuilder \(String(format: "%.2f", traceSeconds)) s (\(rate(fixes, traceSeconds))), "
            + "run \(String(format: "%.3f", runSeconds)) s → \(rate(fixes, openSeconds + traceSeconds + runSeconds)) overall")
        if let result {
            lines.append("  accepted \(result.accepted), rejected \(result.rejected), odometer \(String(format: "%.1f", result.odometerReplayed)) m")
        }

        // 3. The CLI as a user runs it.
        let cli = try context.timeCommand(context.toolPath, ["replay", context.dumpPath, "--json"])
        lines.append("bgeo-forensics replay --json (process): \(String(format: "%.2f", cli.seconds)) s, exit \(cli.status), "
            + "peak \(String(format: "%.0f", cli.peakMB)) MB")

        // 4. sqlite3 CLI on a copy (it checkpoints and may modify what it opens).
        let copy = context.scratch + "/replay-sqlite3-copy.db"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: context.dumpPath, toPath: copy)
        if FileManager.default.fileExists(atPath: context.dumpPath + "-wal") {
            try? FileManager.default.removeItem(atPath: copy + "-wal")
            try FileManager.default.copyItem(atPath: context.dumpPath + "-wal", toPath: copy + "-wal")
        }
        let sql = """
            SELECT id, uuid, timestamp, json_extract(json, '$.coords.latitude'), json_extract(json, '$.coords.longitude'),
                   json_extract(json, '$.coords.accuracy'), json_extract(json, '$.odometer')
            FROM location_events WHERE kind = 'location' ORDER BY id
            """
        if let sqlite = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            let baseline = try context.timeCommand(sqlite, [copy, sql])
            lines.append("sqlite3 CLI json_extract scan of the same rows: \(String(format: "%.2f", baseline.seconds)) s "
                + "(\(rate(context.records, baseline.seconds))), exit \(baseline.status)")
        } else {
            lines.append("sqlite3 CLI not found: baseline skipped")
        }
        try? FileManager.default.removeItem(atPath: copy)
        try? FileManager.default.removeItem(atPath: copy + "-wal")
        context.report("Replay", lines)
    }

    /// Best of `repeats` runs of the bare pipeline loop; the checksum keeps the work observable.
    static func bestPipelineTime(_ fixes: [Fix], config: FilterConfig, repeats: Int) -> (Double, Int) {
        var best = Double.infinity
        var checksum = 0
        for _ in 0..<repeats {
            var pipeline = ReplayPipeline(config: config)
            var accepted = 0
            let start = DispatchTime.now().uptimeNanoseconds
            for i in fixes.indices where pipeline.process(fixes[i]).decision != .rejected { accepted += 1 }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            best = min(best, seconds)
            checksum = accepted &+ Int(pipeline.odometerTotal)
        }
        return (best, checksum)
    }

    /// A random walk (steps up to ~20 m every 5 s) with 1 % teleports (30 km jumps), 2 % fixes with 150 m accuracy, 1 %
    /// without accuracy, and a 10-minute gap every 5 000 fixes. Deterministic.
    static func syntheticFixes(count: Int) -> [Fix] {
        var fixes: [Fix] = []
        fixes.reserveCapacity(count)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        var t = 1_785_000_000.0
        var lat = 52.0, lon = 21.0
        for i in 0..<count {
            t += (i % 5000 == 4999) ? 600 : 5
            // Zero-mean steps: a million of them wander ~0.1°, never off the map.
            lat += 0.0004 * (Double(next() % 1000) / 1000 - 0.5)
            lon += 0.0004 * (Double(next() % 1000) / 1000 - 0.5)
            let roll = next() % 100
            var fix = Fix(index: i, time: t, latitude: lat, longitude: lon, accuracy: 5 + Double(next() % 20),
                          uuid: "", timestampText: "")
            if roll == 0 { fix.latitude += 0.3 }
            if roll == 1 || roll == 2 { fix.accuracy = 150 }
            if roll == 3 { fix.accuracy = nil }
            fixes.append(fix)
        }
        return fixes
    }
}
