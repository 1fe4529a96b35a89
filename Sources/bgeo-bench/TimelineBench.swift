import BGeoForensics
import BGeoSimulation
import Foundation

/// `timeline --json` on the 1,000,000-row log beside the `sqlite3` CLI scanning the same log rows
/// with json_extract (on a copy): on the shared bench dump (mostly `location` lines), and on an
/// upload-heavy log of the same size written once into the scratch folder.
enum TimelineBench {
    static func run(_ context: BenchContext) throws {
        // 1. The shared bench dump, when it carries a log of that size (the simulator's large
        //    shape: ~1,000,000 `location` lines beside 1,000,000 queued records).
        let sharedRows = countLogRows(context.dumpPath)
        if sharedRows >= context.records {
            try measure(context, path: context.dumpPath, label: "bench dump", logRows: sharedRows)
        }
        // 2. An upload-heavy log of the same size (requests, responses, backoffs, refreshes,
        //    queue inserts, heartbeats, nightly gaps), written once into the scratch folder.
        let path = context.scratch + "/timeline-log-\(context.records).db"
        if countLogRows(path) < context.records {
            print("Writing a \(context.records)-row upload-heavy log for the timeline bench at \(path) …")
            let seconds = try context.time { try writeLog(to: path, rows: context.records) }
            print(String(format: "  done in %.1f s", seconds))
        }
        try measure(context, path: path, label: "upload-heavy log", logRows: countLogRows(path))
    }

    static func measure(_ context: BenchContext, path: String, label: String, logRows: Int) throws {
        let output = context.scratch + "/timeline-bench.json"
        let ours = try context.timeCommand(context.toolPath, ["timeline", path, "--json"], stdoutTo: output)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        try? FileManager.default.removeItem(atPath: output)
        let baseline = try sqliteScan(context, path: path, sql: """
            SELECT count(*), max(ts), count(DISTINCT event), sum(json_extract(data, '$.status')),
                   sum(json_extract(data, '$.delay_s')), count(json_extract(data, '$.timestamp')),
                   sum(json_extract(data, '$.is_moving')) FROM log_entries;
            """)
        let megabytes = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1e6
        context.report(String(format: "Timeline, %@ (%d log rows, %.0f MB file)", label, logRows, megabytes), [
            String(format: "bgeo-forensics timeline --json: %.2f s (%@ rows), peak RSS %.0f MB, exit %d, %d KB of JSON — includes copying and SHA-256 of the evidence and the queue scan",
                   ours.seconds, rate(logRows, ours.seconds), ours.peakMB, ours.status, bytes / 1024),
            String(format: "sqlite3 json_extract scan of the same log rows (on a copy): %.2f s (%@ rows), peak RSS %.0f MB",
                   baseline.seconds, rate(logRows, baseline.seconds), baseline.peakMB),
            String(format: "ratio: %.2f× the sqlite3 scan (target ≤ 2×); peak RSS target < 300 MB", ours.seconds / baseline.seconds),
        ])
    }

    static func countLogRows(_ path: String) -> Int {
        guard FileManager.default.fileExists(atPath: path), let db = try? Database(path: path, mode: .readOnly),
              let stmt = try? db.prepare("SELECT count(*) FROM log_entries"), (try? stmt.step()) == true else { return 0 }
        return stmt.int(0)
    }

    /// The `sqlite3` CLI on a copy of `path` (it opens read-write and may checkpoint).
    static func sqliteScan(_ context: BenchContext, path: String, sql: String) throws -> CommandRun {
        let copy = context.scratch + "/sqlite3-timeline-copy.db"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try context.timeCommand("/usr/bin/sqlite3", [copy, "SELECT count(*) FROM sqlite_master"])
        return try context.timeCommand("/usr/bin/sqlite3", [copy, sql])
    }

    /// A log with the event mix of a busy device: fixes, queue inserts, uploads (mostly 2xx,
    /// some 503s with backoff, 401s with refreshes), heartbeats, motion changes, connectivity,
    /// deferrals, and nightly stationary gaps. Deterministic.
    static func writeLog(to path: String, rows: Int) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        try w.setState("config", ["url": "https://ingest.example/locations", "batchSync": true, "maxBatchSize": 25,
                                  "authorization": ["strategy": "JWT", "accessToken": "at-0123456789",
                                                    "refreshToken": "rt-0123456789", "refreshUrl": "https://ingest.example/r"]])
        var written = 0
        var clock = 1_785_000_000.0
        var fix = 0
        var cycle = 0
        var failures = 0
        var batch: [String] = []
        func log(_ event: String, _ level: Int, _ data: String?, message: String? = nil) throws {
            guard written < rows else { return }
            clock += 0.5
            try w.insertLog(ts: Timestamp.format(clock), level: level, event: event, message: message, data: data)
            written += 1
        }
        try log("session.start", 3, "{\"reason\":\"launch\"}")
        while written < rows {
            cycle += 1
            if cycle % 400 == 0 {  // a stationary night every 400 cycles
                try log("motionchange", 3, "{\"confidence\":80}", message: "STATIONARY")
                try log("motion.stationary", 3, nil)
                clock += 4 * 3600
                try log("wake.region.exit", 3, nil)
                try log("motionchange", 3, "{\"confidence\":90}", message: "MOVING")
            }
            if cycle % 97 == 0 { try log("connectivity", 3, "{\"connected\":true,\"transport\":\"wifi\"}") }
            for _ in 0..<5 {
                fix += 1
                clock += 5
                let uuid = String(format: "00000000-0000-4000-8000-%012x", fix)
                let ts = Timestamp.format(clock)
                try log("location", 4, "{\"uuid\":\"\(uuid)\",\"timestamp\":\"\(ts)\",\"latitude\":52.\(fix % 10000),\"longitude\":21.\(fix % 7919),\"accuracy\":8.4,\"speed\":6.7,\"heading\":184.2,\"altitude\":112.3,\"odometer\":\(fix * 30),\"is_moving\":true,\"raw_latitude\":52.2297,\"raw_longitude\":21.0122}")
                try log("queue.insert", 5, "{\"uuid\":\"\(uuid)\",\"count\":\(batch.count + 1)}")
                batch.append(uuid)
            }
            let uuids = "[" + batch.map { "\"\($0)\"" }.joined(separator: ",") + "]"
            let request = "{\"url\":\"https://ingest.example/locations\",\"method\":\"POST\",\"count\":\(batch.count),\"uuids\":\(uuids),\"bytes\":\(batch.count * 410),\"attempt\":1}"
            try log("http.request", 3, request)
            if cycle % 53 == 0 {
                failures += 1
                try log("http.response", 3, "{\"status\":503,\"count\":\(batch.count),\"ms\":240,\"response\":\"unavailable\"}")
                let delay = BackoffSchedule.bgeo.delay(afterFailures: failures)
                try log("http.backoff", 3, "{\"failures\":\(failures),\"delay_s\":\(delay),\"next_attempt_at\":\"\(Timestamp.format(clock + delay))\"}")
                continue
            }
            if cycle % 211 == 0 {
                try log("http.response", 3, "{\"status\":401,\"count\":\(batch.count),\"ms\":90,\"response\":\"expired\"}")
                try log("auth.refresh", 3, "{\"url\":\"https://ingest.example/r\"}")
                try log("auth.refresh.result", 3, "{\"success\":true,\"status\":200}")
                try log("http.request", 3, request)
            }
            try log("http.response", 3, "{\"status\":200,\"count\":\(batch.count),\"ms\":180,\"response\":\"ok\"}")
            failures = 0
            batch = []
            if cycle % 7 == 0 { try log("heartbeat", 4, nil) }
            if cycle % 31 == 0 { try log("sync.deferred", 3, "{\"reason\":\"threshold\",\"pending\":4}") }
        }
        for i in 0..<1000 {
            let ts = Timestamp.format(clock + Double(i))
            try w.insertRecord(uuid: "pending-\(i)", timestamp: ts,
                               json: "{\"uuid\":\"pending-\(i)\",\"timestamp\":\"\(ts)\",\"is_moving\":true,\"coords\":{\"latitude\":52.2,\"longitude\":21.0,\"accuracy\":5,\"speed\":6}}")
        }
        try w.close()
    }
}
