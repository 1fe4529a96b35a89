import BGeoForensics
import Foundation

/// `resync` to a local Python ingest server, single records and batches of 100, beside a minimal
/// Python client (http.client, keep-alive) sending the same bodies to the same server.
/// Uses its own small dump (a re-sync of 1M records would only measure the server).
enum ResyncBench {
    static let records = 20_000
    /// Best of 5: two shared cores make single runs vary by 2x (a batch run takes ~0.05 s).
    static let repetitions = 5

    static var serverScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/EndToEndTests/Fixtures/ingest_server.py").path
    }

    /// The baseline client: reads the queue rows and POSTs the bodies the SDK would send.
    static let baselineClient = #"""
        import http.client, json, sqlite3, sys, time
        db, port, batch, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        rows = [r[0] for r in sqlite3.connect(db).execute("SELECT json FROM location_events ORDER BY id LIMIT ?", (count,))]
        if batch == 1:
            bodies = ['{"location":' + r + '}' for r in rows]
        else:
            bodies = ['{"location":[' + ",".join(rows[i:i + batch]) + ']}' for i in range(0, len(rows), batch)]
        conn = http.client.HTTPConnection("127.0.0.1", port)
        start = time.perf_counter()
        for body in bodies:
            conn.request("POST", "/locs", body=body.encode(), headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                sys.exit("status %d" % response.status)
        print(time.perf_counter() - start)
        """#

    /// A copy of the dump holding only its first `count` records (built once).
    static func subset(_ dump: String, count: Int, dir: String) -> String {
        let path = dir + "/bgeo-\(count).db"
        if FileManager.default.fileExists(atPath: path) { return path }
        _ = try? FileManager.default.copyItem(atPath: dump, toPath: path)
        if let db = try? Database(path: path, mode: .readWriteCreate) {
            try? db.execute("DELETE FROM location_events WHERE id > \(count); VACUUM")
        }
        return path
    }

    static func run(_ context: BenchContext) throws {
        let dir = context.scratch + "/resync-bench"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let dump = dir + "/bgeo.db"
        let writer = try DumpWriter(path: dump, layout: .current)
        try writer.begin()
        for i in 0..<records {
            let ts = Timestamp.format(1_784_880_000 + Double(i) * 10)
            let record: JSONValue = [
                "uuid": .string("bench-\(i)"), "timestamp": .string(ts), "odometer": .double(Double(i) * 12.5),
                "coords": ["latitude": .double(52.2 + Double(i) * 1e-5), "longitude": 21.01, "accuracy": 8.4, "altitude": 112.3,
                           "speed": 6.7, "heading": 184.2],
                "activity": ["type": "in_vehicle", "confidence": 92], "battery": ["level": 0.63, "is_charging": false],
                "is_moving": true, "extras": ["fleetId": "north-42"],
            ]
            try writer.insertRecord(record)
        }
        try writer.close()
        let client = dir + "/client.py"
        try baselineClient.write(toFile: client, atomically: true, encoding: .utf8)

        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", serverScript, "--port-file", dir + "/port"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var port: Int?
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: dir + "/port", encoding: .utf8), let p = Int(text) { port = p; break }
            usleep(25_000)
        }
        guard let port else {
            context.report("Resync", ["could not start the Python ingest server (\(serverScript))"])
            return
        }
        var lines = ["re-sync to a local Python http.server (ThreadingHTTPServer, keep-alive)"]
        for (label, batch, count) in [("single", 1, 5_000), ("batch 100", 100, records)] {
            // Best of `repetitions` for both sides (the machine is shared): the first `count` rows.
            var baseBest = Double.infinity
            var drainBest = Double.infinity
            var wholeBest = Double.infinity
            var delivered = -1
            var status: Int32 = -1
            for repetition in 0..<repetitions {
                // Baseline: a minimal keep-alive Python client sending the same bodies.
                let baseOut = dir + "/base-\(batch).txt"
                let base = try context.timeCommand("/usr/bin/env", ["python3", client, dump, String(port), String(batch), String(count)],
                                                   stdoutTo: baseOut)
                let baseSeconds = Double((try? String(contentsOfFile: baseOut, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? base.seconds
                baseBest = min(baseBest, baseSeconds)
                // resync end to end (hash + working copy + drain); drain time from its --json summary.
                let out = dir + "/resync-\(batch).json"
                var arguments = ["resync", count == records ? dump : subset(dump, count: count, dir: dir),
                                 "--url", "http://127.0.0.1:\(port)/locs", "--work", dir + "/work-\(batch)-\(repetition)", "--json"]
                if batch > 1 { arguments += ["--set", "batchSync=true", "--set", "maxBatchSize=\(batch)"] }
                let run = try context.timeCommand(context.toolPath, arguments, stdoutTo: out)
                let summary = (try? String(contentsOfFile: out, encoding: .utf8)).flatMap { try? JSONParser.parse($0) }
                // drainSeconds: requests, responses and commits only (the Python client's timer
                // also starts after its setup); older builds without it fall back to `seconds`.
                drainBest = min(drainBest, summary?["drainSeconds"]?.doubleValue ?? summary?["seconds"]?.doubleValue ?? run.seconds)
                wholeBest = min(wholeBest, run.seconds)
                delivered = summary?["delivered"]?.intValue ?? -1
                status = run.status
            }
            let ours = Double(count) / drainBest
            let theirs = Double(count) / baseBest
            lines.append(String(format: "%@ (%d records, best of %d): resync %.0f rec/s (drain %.3f s, whole run %.2f s, exit %d, delivered %d) | python client %.0f rec/s (%.3f s) | ratio %.0f %%",
                                label, count, repetitions, ours, drainBest, wholeBest, status, delivered, theirs, baseBest,
                                100 * ours / theirs))
        }
        context.report("Resync", lines)
    }
}
