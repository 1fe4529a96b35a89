import BGeoForensics
import Foundation

/// `sanitize` on the big dump beside `sqlite3` doing the same kind of rewrite on a copy: every
/// record's and every location line's JSON rewritten with json_set (longitude moved, extras
/// replaced) into a new database, then compacted with VACUUM INTO.
enum SanitizeBench {
    static func run(_ context: BenchContext) throws {
        let output = context.scratch + "/sanitised.db"
        try? FileManager.default.removeItem(atPath: output)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let ours = try context.timeCommand(context.toolPath, ["sanitize", context.dumpPath, "-o", output])
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0

        let copy = context.scratch + "/sqlite3-sanitize-copy.db"
        let work = context.scratch + "/sqlite3-sanitize-work.db"
        let compact = context.scratch + "/sqlite3-sanitize-out.db"
        for path in [copy, work, compact] { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.copyItem(atPath: context.dumpPath, toPath: copy)
        defer { for path in [copy, work, compact] { try? FileManager.default.removeItem(atPath: path) } }
        let rewrite = try context.timeCommand("/usr/bin/sqlite3", [copy, """
            ATTACH '\(work)' AS w;
            CREATE TABLE w.location_events AS SELECT id, uuid, timestamp, kind,
              json_set(json, '$.coords.longitude', json_extract(json, '$.coords.longitude') + 1.25,
                       '$.extras', json_object('fleetId', hex(randomblob(6)))) AS json, created_at FROM location_events;
            CREATE TABLE w.log_entries AS SELECT id, ts, level, src, event, message,
              CASE WHEN json_extract(data, '$.longitude') IS NOT NULL
                   THEN json_set(data, '$.longitude', json_extract(data, '$.longitude') + 1.25) ELSE data END AS data,
              uploaded FROM log_entries;
            """])
        let vacuum = try context.timeCommand("/usr/bin/sqlite3", [work, "VACUUM INTO '\(compact)'"])
        let baseline = rewrite.seconds + vacuum.seconds
        context.report("Sanitize (a full rewrite of the dump)", [
            String(format: "bgeo-forensics sanitize: %.2f s (%.1f s CPU), peak RSS %.0f MB, %d bytes out, exit %d — includes the private copy, "
                   + "the survey pass, VACUUM INTO, the output's integrity check and byte search, and hashing the evidence twice",
                   ours.seconds, ours.cpu, ours.peakMB, bytes, ours.status),
            String(format: "sqlite3 json_set rewrite + VACUUM INTO (on a copy): %.2f s + %.2f s = %.2f s, peak RSS %.0f MB",
                   rewrite.seconds, vacuum.seconds, baseline, max(rewrite.peakMB, vacuum.peakMB)),
            String(format: "ratio: %.2f× the sqlite3 rewrite", ours.seconds / baseline),
        ])
    }
}
