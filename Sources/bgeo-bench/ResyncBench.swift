import BGeoForensics
import BGeoResync
import BGeoSimulation
import Foundation

/// `resync` to a local Python ingest server, single records and batches of 100 (20,000 records
/// each), beside a minimal Python client (http.client, keep-alive) sending the very same request
/// bodies and headers to the same server. The dump's config has `params`, `extras` and an api-key
/// header, like every real config: extras are merged into each record, which the client gets
/// for free (its bodies are the ones resync sent, captured first by a recording server).
/// Uses its own small dump (a re-sync of 1M records would only measure the server).
enum ResyncBench {
    static let records = 20_000
    /// Best of N for both sides, interleaved: two shared cores make runs vary by 2x, and a batch
    /// drain takes ~0.05 s, so one busy moment decides a single run; single-record runs take
    /// seconds and vary less.
    static let repetitions = ["single": 5, "batch 100": 15]

    /// The config every bench run sends with (a simulated device's HTTP keys).
    static let config: JSONValue = [
        "headers": ["X-Api-Key": "ak_bench_3c1d9e", "X-Client": "driver-app/5.8.2"],
        "params": ["deviceId": "dev-882", "apiVersion": 2],
        "extras": ["fleetId": "north-42", "shift": "day"],
        "httpTimeoutMs": 30000,
    ]

    static var serverScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/EndToEndTests/Fixtures/ingest_server.py").path
    }

    /// The baseline client: replays the requests a recording server captured from resync (same
    /// bodies, same config headers) over one keep-alive connection; the timer starts once they
    /// are loaded.
    static let baselineClient = #"""
        import http.client, json, sys, time
        capture, port = sys.argv[1], int(sys.argv[2])
        skip = {"host", "content-length", "connection", "accept-encoding", "user-agent"}
        requests = []
        for line in open(capture):
            r = json.loads(line)
            headers = {k: v for k, v in r["headers"].items() if k.lower() not in skip}
            requests.append((r["method"], r["path"], r["body"].encode(), headers))
        conn = http.client.HTTPConnection("127.0.0.1", port)
        start = time.perf_counter()
        for method, path, body, headers in requests:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                sys.exit("status %d" % response.status)
        print(time.perf_counter() - start)
        """#

    /// A Python ingest server on a free port (recording every request to `record` when given).
    static func startServer(dir: String, name: String, record: String?) throws -> (Process, Int)? {
        let portFile = dir + "/port-" + name
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", serverScript, "--port-file", portFile] + (record.map { ["--record", $0] } ?? [])
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) { return (server, port) }
            usleep(25_000)
        }
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        return nil
    }

    /// `taskset` and at least two cores: the pinned rows can run.
    static var canPin: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") && ProcessInfo.processInfo.activeProcessorCount >= 2
    }

    /// Moves every thread of `pid` to `cores` (`taskset -a -p -c`).
    static func pin(_ pid: Int32, cores: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-a", "-p", "-c", cores, String(pid)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
        process.waitUntilExit()
    }

    /// A timed child, on core 0 when `pinned`.
    static func timed(_ context: BenchContext, _ pinned: Bool, _ path: String, _ arguments: [String],
                      stdoutTo: String) throws -> CommandRun {
        pinned ? try context.timeCommand("/usr/bin/taskset", ["-c", "0", path] + arguments, stdoutTo: stdoutTo)
            : try context.timeCommand(path, arguments, stdoutTo: stdoutTo)
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
            var record: JSONObject = [
                "uuid": .string("bench-\(i)"), "timestamp": .string(ts), "odometer": .double(Double(i) * 12.5),
                "coords": ["latitude": .double(52.2 + Double(i) * 1e-5), "longitude": 21.01, "accuracy": 8.4, "altitude": 112.3,
                           "speed": 6.7, "heading": 184.2],
                "activity": ["type": "in_vehicle", "confidence": 92], "battery": ["level": 0.63, "is_charging": false],
                "is_moving": true,
            ]
            // Most records carry extras of their own (merged with the config's), some none.
            if i % 4 != 3 { record["extras"] = ["fleetId": .string("own-\(i % 7)"), "trip": .int(Int64(i / 50))] }
            try writer.insertRecord(.object(record))
        }
        try writer.setState("config", config)
        try writer.close()
        let client = dir + "/client.py"
        try baselineClient.write(toFile: client, atomically: true, encoding: .utf8)

        guard let (server, port) = try startServer(dir: dir, name: "timed", record: nil) else {
            context.report("Resync", ["could not start the Python ingest server (\(serverScript))"])
            return
        }
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var lines = ["re-sync to a local Python http.server (ThreadingHTTPServer, keep-alive); config with params, extras and "
                     + "2 headers; the baseline replays resync's own captured requests"]
        for (label, batch) in [("single", 1), ("batch 100", 100)] {
            let batchArguments = batch > 1 ? ["--set", "batchSync=true", "--set", "maxBatchSize=\(batch)"] : []
            // The requests resync sends, captured once by a recording server: the baseline's bytes.
            let capture = dir + "/capture-\(batch).ndjson"
            guard let (recording, capturePort) = try startServer(dir: dir, name: "capture-\(batch)", record: capture) else {
                context.report("Resync", ["could not start the recording ingest server"])
                return
            }
            let captured = try context.timeCommand(context.toolPath, ["resync", dump, "--url", "http://127.0.0.1:\(capturePort)/locs",
                                                                      "--work", dir + "/work-capture-\(batch)"] + batchArguments)
            kill(recording.processIdentifier, SIGKILL)
            recording.waitUntilExit()
            let capturedRequests = ((try? String(contentsOfFile: capture, encoding: .utf8)) ?? "").split(separator: "\n").count
            // Two placements: as the scheduler likes (what an operator gets), and each client on
            // core 0 with the server alone on core 1, the same for both sides — on two shared
            // cores, whether the server happens to land on the client's core decides more than
            // either client does.
            let placements: [(name: String, pinned: Bool)] = canPin ? [("", false), (", pinned", true)] : [("", false)]
            for placement in placements {
                if canPin { pin(server.processIdentifier, cores: placement.pinned ? "1" : "0,1") }
                // Best of N for both sides, interleaved (the machine is shared).
                var baseBest = Double.infinity
                var drainBest = Double.infinity
                var wholeBest = Double.infinity
                var delivered = -1
                var status: Int32 = -1
                let rounds = repetitions[label] ?? 5
                for repetition in 0..<rounds {
                    let baseOut = dir + "/base-\(batch).txt"
                    let base = try timed(context, placement.pinned, "/usr/bin/env", ["python3", client, capture, String(port)], stdoutTo: baseOut)
                    let baseSeconds = Double((try? String(contentsOfFile: baseOut, encoding: .utf8))?
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? base.seconds
                    baseBest = min(baseBest, baseSeconds)
                    // resync end to end (hash + working copy + drain); drain time from its --json summary.
                    let out = dir + "/resync-\(batch).json"
                    let work = dir + "/work-\(batch)-\(placement.pinned)-\(repetition)"
                    let arguments = ["resync", dump, "--url", "http://127.0.0.1:\(port)/locs", "--work", work, "--json"] + batchArguments
                    let run = try timed(context, placement.pinned, context.toolPath, arguments, stdoutTo: out)
                    let summary = (try? String(contentsOfFile: out, encoding: .utf8)).flatMap { try? JSONParser.parse($0) }
                    // drainSeconds: requests, responses and commits only (the Python client's timer
                    // also starts after its setup).
                    drainBest = min(drainBest, summary?["drainSeconds"]?.doubleValue ?? summary?["seconds"]?.doubleValue ?? run.seconds)
                    wholeBest = min(wholeBest, run.seconds)
                    delivered = summary?["delivered"]?.intValue ?? -1
                    status = run.status
                    try? FileManager.default.removeItem(atPath: work)
                }
                let ours = Double(records) / drainBest
                let theirs = Double(records) / baseBest
                lines.append(String(format: "%@%@ (%d records, %d requests, best of %d): resync %.0f rec/s (drain %.3f s, whole run %.2f s, exit %d, delivered %d; capture run exit %d) | python client %.0f rec/s (%.3f s) | ratio %.0f %%",
                                    label, placement.name, records, capturedRequests, rounds, ours, drainBest, wholeBest, status,
                                    delivered, captured.status, theirs, baseBest, 100 * ours / theirs))
            }
        }
        context.report("Resync", lines)
    }
}
