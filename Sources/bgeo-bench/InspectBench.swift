import BGeoForensics
import Foundation

/// `inspect` on the big dump beside `sqlite3` scanning the same rows with json_extract on a copy.
enum InspectBench {
    static func run(_ context: BenchContext) throws {
        let dump = try Dump(path: context.dumpPath)
        var queueRows = 0
        var logRows = 0
        if let s = try? dump.database.prepare("SELECT count(*) FROM location_events"), (try? s.step()) == true { queueRows = s.int(0) }
        if let s = try? dump.database.prepare("SELECT count(*) FROM log_entries"), (try? s.step()) == true { logRows = s.int(0) }
        let rows = queueRows + logRows

        let ours = try context.timeCommand(context.toolPath, ["inspect", context.dumpPath, "--json"])
        let baseline = try SQLiteBaseline.scan(context, sql: """
            SELECT count(*), sum(json_extract(json, '$.coords.latitude')), sum(json_extract(json, '$.coords.longitude')) FROM location_events;
            SELECT count(*), sum(json_extract(data, '$.status')) FROM log_entries;
            """)
        context.report("Inspect (\(queueRows) queue rows + \(logRows) log rows)", [
            String(format: "bgeo-forensics inspect --json: %.2f s (%@ rows), peak RSS %.0f MB, exit %d — includes copying and SHA-256 of the evidence",
                   ours.seconds, rate(rows, ours.seconds), ours.peakMB, ours.status),
            String(format: "sqlite3 json_extract scan (on a copy): %.2f s (%@ rows), peak RSS %.0f MB",
                   baseline.seconds, rate(rows, baseline.seconds), baseline.peakMB),
            String(format: "ratio: %.2f× the sqlite3 scan (target ≤ 2×); peak RSS target < 200 MB", ours.seconds / baseline.seconds),
        ])
    }
}

/// The independent baseline: the `sqlite3` CLI scanning the same rows, always on a copy (the CLI
/// opens read-write and would checkpoint a WAL into the file).
enum SQLiteBaseline {
    static func scan(_ context: BenchContext, sql: String) throws -> CommandRun {
        let copy = context.scratch + "/sqlite3-baseline-copy.db"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: context.dumpPath, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        // Warm the page cache the same way our run had it.
        _ = try context.timeCommand("/usr/bin/sqlite3", [copy, "SELECT count(*) FROM sqlite_master"])
        return try context.timeCommand("/usr/bin/sqlite3", [copy, sql])
    }
}
