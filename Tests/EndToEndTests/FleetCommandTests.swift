import BGeoForensics
import BGeoSimulation
import Foundation
import Testing

/// `fleet` as a support team runs it: a folder of simulated dumps of every scenario (one stranded
/// for three days), a text file, an empty file and a truncated dump; one row per input; DuckDB
/// answering the README's query; resuming; crashes, hangs and interrupts contained.
@Suite struct FleetCommandTests {
    static let directory = TestDirectory("fleet-e2e")

    /// The inputs, made once: `simulate --all`, a stranded-refresh dump spanning three days, and three non-dumps.
    static let inputs: String = {
        let folder = directory.file("dumps")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let all = try ToolRunner.run(["simulate", "--all", "-o", folder + "/"])
            precondition(all.exitCode == 0, all.stderr)
            let long = try ToolRunner.run(["simulate", "--scenario", "stranded-refresh", "--records", "1500", "-o", folder + "/stranded-3-days.db"])
            precondition(long.exitCode == 0, long.stderr)
            try "just some notes\n".write(toFile: folder + "/notes.txt", atomically: false, encoding: .utf8)
            _ = FileManager.default.createFile(atPath: folder + "/empty.db", contents: Data())
            let healthy = try Data(contentsOf: URL(fileURLWithPath: folder + "/healthy-day.db"))
            try healthy.prefix(50_000).write(to: URL(fileURLWithPath: folder + "/truncated.db"))
        } catch {
            fatalError("fixture: \(error)")
        }
        return folder
    }()

    static let scenarioCount = 9
    static var inputCount: Int { scenarioCount + 4 }

    /// One run over the inputs with two jobs, shared by the tests that only read its output.
    static let run: (rows: String, findings: String, result: ToolResult) = {
        let rows = directory.file("rows.ndjson"), findings = directory.file("findings.ndjson")
        let result = try! ToolRunner.run(["fleet", inputs, "-o", rows, "--findings", findings, "--jobs", "2", "--json"])
        return (rows, findings, result)
    }()

    static func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func name(_ row: [String: Any]) -> String { ((row["path"] as? String ?? "") as NSString).lastPathComponent }

    static var hasDuckDB: Bool {
        (try? ReportE2E.run("/usr/bin/env", ["python3", "-c", "import duckdb"]).exitCode) == 0
            || ProcessInfo.processInfo.environment["CI"] != nil
    }

    @Test func oneRowPerInputWithTheDumpsFacts() throws {
        let run = FleetCommandTests.run
        #expect(run.result.exitCode == 0, "\(run.result.stderr)")
        let rows = try FleetCommandTests.lines(run.rows)
        #expect(rows.count == FleetCommandTests.inputCount)
        #expect(Set(rows.map(FleetCommandTests.name)).count == rows.count)
        let byName = Dictionary(uniqueKeysWithValues: rows.map { (FleetCommandTests.name($0), $0) })
        for (name, sentence) in [("notes.txt", "is not an SQLite database"), ("empty.db", "is empty (0 bytes)")] {
            let row = try #require(byName[name])
            #expect(row["status"] as? String == "not_a_dump" && row["exitCode"] as? Int == 2)
            #expect((row["error"] as? String)?.contains(sentence) == true, "\(row)")
            #expect(row["sha256"] as? String == (try EvidenceCopy.sha256(ofFile: FleetCommandTests.inputs + "/" + name)))
        }
        // A truncated dump is read as far as its intact pages go (the dump contract), with warnings.
        let truncated = try #require(byName["truncated.db"])
        #expect(truncated["status"] as? String == "ok" && (truncated["warnings"] as? Int ?? 0) > 0, "\(truncated)")
        #expect(rows.filter { $0["status"] as? String == "ok" }.count == FleetCommandTests.scenarioCount + 2)
        // Every row has the same keys (one schema for DuckDB and Spark).
        #expect(Set(rows.map { Set($0.keys) }).count == 1)
        let wal = try #require(byName["wal-mode.db"])
        #expect(wal["walSha256"] as? String == (try EvidenceCopy.sha256(ofFile: FleetCommandTests.inputs + "/wal-mode.db-wal")))
        #expect((wal["queue"] as? [String: Any])?["records"] as? Int == 7)
        #expect(byName["longping.db"]?["format"] as? String == "longping")
        #expect(byName["legacy-schema.db"]?["legacy"] as? Bool == true)
        let teleports = try #require(byName["teleports.db"]?["odometer"] as? [String: Any])
        #expect((teleports["recorded"] as? Double ?? 0) > 2_000_000 && (teleports["replayed"] as? Double ?? 0) > 2_000_000)
        let stranded = try #require(byName["stranded-refresh.db"])
        #expect((stranded["findingCodes"] as? [String])?.first == "queue.stranded")
        #expect((stranded["device"] as? [String: Any])?["platform"] as? String == "ios")
        #expect((stranded["config"] as? [String: Any])?["urlHost"] as? String == "track.northwind-logistics.example")
        let finding = try #require((stranded["findings"] as? [[String: Any]])?.first)
        #expect(finding["severity"] as? String == "error" && finding["count"] as? Int == 1 && finding["first"] is String)
        // Findings: one line per finding, each naming a dump of the rows by SHA-256, with evidence.
        let findings = try FleetCommandTests.lines(run.findings)
        let shas = Set(rows.compactMap { $0["sha256"] as? String })
        var counted = 0
        for row in rows {
            for group in row["findings"] as? [[String: Any]] ?? [] { counted += group["count"] as? Int ?? 0 }
        }
        #expect(findings.count == counted)
        #expect(findings.allSatisfy { shas.contains($0["sha256"] as? String ?? "") && $0["evidence"] is [Any] })
        #expect(run.result.stderr.contains("fleet: 13 inputs: 11 analysed, 2 not dumps"))
    }

    /// The README's DuckDB query, read from the README itself, returns exactly the dumps whose
    /// queue is stranded with a pending record older than 24 h — decided independently here from
    /// `timeline --json` and `inspect --json` of each dump.
    @Test(.enabled(if: FleetCommandTests.hasDuckDB, "DuckDB is not installed: pip install duckdb"))
    func duckDBAnswersTheReadmeQuery() throws {
        let readme = try String(contentsOfFile: ReportE2E.packageRoot + "/README.md", encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- fleet-duckdb-query -->"))
        let rest = readme[marker.upperBound...]
        let start = try #require(rest.range(of: "```sql\n"))
        let end = try #require(rest[start.upperBound...].range(of: "```"))
        let query = String(rest[start.upperBound..<end.lowerBound])
        #expect(query.contains("read_json_auto('dumps.ndjson'"))
        let folder = FleetCommandTests.directory.file("duckdb")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: folder + "/dumps.ndjson")
        try FileManager.default.copyItem(atPath: FleetCommandTests.run.rows, toPath: folder + "/dumps.ndjson")
        try query.write(toFile: folder + "/query.sql", atomically: false, encoding: .utf8)
        let script = "import duckdb, json; rows = duckdb.sql(open('query.sql').read()).fetchall(); print(json.dumps([r[0] for r in rows]))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)")
        let found = try #require(try JSONSerialization.jsonObject(with: data) as? [String]).map { ($0 as NSString).lastPathComponent }

        var expected: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: FleetCommandTests.inputs).sorted() where name.hasSuffix(".db") {
            let path = FleetCommandTests.inputs + "/" + name
            let timeline = try ToolRunner.run(["timeline", path, "--json", "--findings-only"])
            guard timeline.exitCode == 0, let t = try JSONSerialization.jsonObject(with: Data(timeline.stdout.utf8)) as? [String: Any],
                  (t["findings"] as? [[String: Any]] ?? []).contains(where: { $0["code"] as? String == "queue.stranded" }) else { continue }
            let inspect = try JSONSerialization.jsonObject(with: Data(try ToolRunner.run(["inspect", path, "--json"]).stdout.utf8)) as? [String: Any]
            let queue = inspect?["queue"] as? [String: Any]
            let log = inspect?["log"] as? [String: Any]
            let times = [queue?["newest"], log?["last"]].compactMap { ($0 as? String).flatMap(Timestamp.parse) }
            guard let oldest = (queue?["oldest"] as? String).flatMap(Timestamp.parse), let newest = times.max() else { continue }
            if newest - oldest > 24 * 3600 { expected.append(name) }
        }
        #expect(expected == ["stranded-3-days.db"])
        #expect(found == expected)
    }

    /// A run killed while writing leaves a cut last line: the next run repairs it, redoes only
    /// that input, and skips the rest by SHA-256.
    @Test func resumeRepairsACutLineAndSkipsWhatIsDone() throws {
        let rows = FleetCommandTests.directory.file("resume.ndjson")
        let findings = FleetCommandTests.directory.file("resume-findings.ndjson")
        try? FileManager.default.removeItem(atPath: rows)
        try FileManager.default.copyItem(atPath: FleetCommandTests.run.rows, toPath: rows)
        try? FileManager.default.removeItem(atPath: findings)
        try FileManager.default.copyItem(atPath: FleetCommandTests.run.findings, toPath: findings)
        var text = try String(contentsOfFile: rows, encoding: .utf8)
        text.removeLast(40)  // the last row, cut short
        try text.write(toFile: rows, atomically: false, encoding: .utf8)
        let again = try ToolRunner.run(["fleet", FleetCommandTests.inputs, "-o", rows, "--findings", findings, "--json"])
        #expect(again.exitCode == 0, "\(again.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(summary["skipped"] as? Int == FleetCommandTests.inputCount - 1)
        #expect((summary["analysed"] as? Int ?? 0) + (summary["notDumps"] as? Int ?? 0) == 1)
        #expect(summary["resumedRows"] as? Int == FleetCommandTests.inputCount - 1 && summary["droppedRows"] as? Int == 1)
        let resumed = try FleetCommandTests.lines(rows)
        #expect(resumed.count == FleetCommandTests.inputCount)
        #expect(Set(resumed.compactMap { $0["sha256"] as? String }).count == FleetCommandTests.inputCount)
        #expect(try FleetCommandTests.lines(findings).count == (try FleetCommandTests.lines(FleetCommandTests.run.findings)).count)
        // A third run has nothing left to do.
        let third = try ToolRunner.run(["fleet", FleetCommandTests.inputs, "-o", rows, "--json"])
        #expect(third.stdout.contains("\"skipped\": \(FleetCommandTests.inputCount)"))
        #expect(try FleetCommandTests.lines(rows).count == FleetCommandTests.inputCount)
    }

    /// Rows do not depend on the number of jobs (only their order does).
    @Test func oneJobWritesTheSameRows() throws {
        let rows = FleetCommandTests.directory.file("one-job.ndjson")
        try? FileManager.default.removeItem(atPath: rows)
        #expect(try ToolRunner.run(["fleet", FleetCommandTests.inputs, "-o", rows, "--jobs", "1"]).exitCode == 0)
        let one = try String(contentsOfFile: rows, encoding: .utf8).split(separator: "\n").sorted()
        let two = try String(contentsOfFile: FleetCommandTests.run.rows, encoding: .utf8).split(separator: "\n").sorted()
        #expect(one == two)
    }

    /// An analysis that crashes (here: a memory limit too small to run) or hangs past --timeout
    /// is that input's failed row; the run goes on, and a re-run retries it.
    @Test func crashesAndTimeoutsAreFailedRowsThatARerunRetries() throws {
        let rows = FleetCommandTests.directory.file("crash.ndjson")
        try? FileManager.default.removeItem(atPath: rows)
        let dumps = ["healthy-day.db", "poison-batch.db"].map { FleetCommandTests.inputs + "/" + $0 }
        let crashed = try ToolRunner.run(["fleet"] + dumps + ["-o", rows, "--memory-limit", "30M", "--json"])
        #expect(crashed.exitCode == 0, "\(crashed.stderr)")
        var lines = try FleetCommandTests.lines(rows)
        #expect(lines.count == 2 && lines.allSatisfy { $0["status"] as? String == "failed" && $0["exitCode"] as? Int == 1 })
        #expect(lines.allSatisfy { ($0["error"] as? String)?.contains("crashed") == true && ($0["error"] as? String)?.contains("30 MB") == true })
        #expect(lines.allSatisfy { $0["sha256"] is String })
        let retried = try ToolRunner.run(["fleet"] + dumps + ["-o", rows, "--json"])
        #expect(retried.stdout.contains("\"analysed\": 2") && retried.stdout.contains("\"droppedRows\": 2"))
        lines = try FleetCommandTests.lines(rows)
        #expect(lines.count == 2 && lines.allSatisfy { $0["status"] as? String == "ok" })

        let slow = FleetCommandTests.directory.file("slow.ndjson")
        try? FileManager.default.removeItem(atPath: slow)
        let timedOut = try ToolRunner.run(["fleet", dumps[0], "-o", slow, "--timeout", "0.01s"])
        #expect(timedOut.exitCode == 0)
        let row = try #require(try FleetCommandTests.lines(slow).first)
        #expect(row["status"] as? String == "failed" && (row["error"] as? String)?.contains("did not finish within") == true)
    }

    /// SIGTERM (or Ctrl-C) mid-run: running analyses are stopped, every line in the output is
    /// whole, the private folders are gone, the exit code is 130, and the next run completes.
    @Test func anInterruptedRunKeepsWholeLinesAndResumes() throws {
        let temporary = TestDirectory("fleet-tmp")
        let rows = FleetCommandTests.directory.file("interrupted.ndjson")
        try? FileManager.default.removeItem(atPath: rows)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.executable)
        process.arguments = ["fleet", FleetCommandTests.inputs, "-o", rows, "--jobs", "1"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, ((try? String(contentsOfFile: rows, encoding: .utf8)) ?? "").split(separator: "\n").count < 2 {
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let partial = try FleetCommandTests.lines(rows)
        #expect(partial.count >= 2 && partial.count < FleetCommandTests.inputCount)
        #expect(try String(contentsOfFile: rows, encoding: .utf8).hasSuffix("\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "private folders left behind")
        let resumed = try ToolRunner.run(["fleet", FleetCommandTests.inputs, "-o", rows])
        #expect(resumed.exitCode == 0)
        #expect(try FleetCommandTests.lines(rows).count == FleetCommandTests.inputCount)
    }

    /// The demo dump's planted secrets appear in no line (unless --show-secrets); a hostile device
    /// model and file name never reach the files or the terminal as raw control characters.
    @Test func secretsAndHostileStringsStayOut() throws {
        let folder = FleetCommandTests.directory.file("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ReportE2E.dump, toPath: folder + "/demo.db")
        let hostileName = folder + "/evil\u{1B}[2J\u{202E}gpj.db"
        let w = try DumpWriter(path: hostileName, layout: .current)
        try w.setState("device", ["platform": "android", "os": "14\u{1B}]0;owned\u{07}", "sdk": "4",
                                  "model": .string("\u{202E}<script>x</script>\u{85}" + String(repeating: "M", count: 100_000))])
        _ = try w.insertRecord(["uuid": "u-1", "timestamp": "2026-07-24T06:00:00.000Z", "coords": ["latitude": 52.0, "longitude": 21.0, "accuracy": 5.0]])
        try w.close()
        let rows = folder + "/out/rows.ndjson", findings = folder + "/out/findings.ndjson"
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        let result = try ToolRunner.run(["fleet", folder, "-o", rows, "--findings", findings])
        #expect(result.exitCode == 0, "\(result.stderr)")
        for file in [rows, findings] {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let text = String(decoding: data, as: UTF8.self)
            for secret in ReportDemoDump.plantedSecrets { #expect(!text.contains(secret), "\(secret) in \(file)") }
            #expect(!data.contains(0x1B) && !data.contains(0x07) && !text.contains("\u{202E}") && !text.contains("\u{85}"))
        }
        let lines = try FleetCommandTests.lines(rows)
        #expect(lines.count == 2)  // the output folder's own files are not inputs
        let hostile = try #require(lines.first { ($0["path"] as? String)?.contains("evil") == true })
        #expect(hostile["path"] as? String == hostileName)
        let model = try #require((hostile["device"] as? [String: Any])?["model"] as? String)
        #expect(model.count == 200 && model.hasPrefix("\u{202E}<script>x</script>\u{85}MMM") && model.hasSuffix("…"))
        #expect((hostile["device"] as? [String: Any])?["os"] as? String == "14\u{1B}]0;owned\u{07}")
        #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{202E}"))
        let shown = folder + "/out/shown.ndjson"
        _ = try ToolRunner.run(["fleet", folder + "/demo.db", "-o", shown, "--show-secrets"])
        #expect(try String(contentsOfFile: shown, encoding: .utf8).contains("api.example.invalid"))
    }

    /// On a terminal a progress bar is redrawn on stderr and cleared; into a pipe only the summary.
    @Test func progressBarOnATerminalOnly() throws {
        let rows = FleetCommandTests.directory.file("pty.ndjson")
        try? FileManager.default.removeItem(atPath: rows)
        let (status, seen) = try ToolRunner.runOnTerminal(["fleet", FleetCommandTests.inputs, "-o", rows])
        #expect(status == 0, "\(seen)")
        #expect(seen.contains("\r\u{1B}[2Kfleet [") && seen.contains("/13"))
        #expect(seen.contains("\r\u{1B}[2Kfleet: 13 inputs:"))
        let piped = try ToolRunner.run(["fleet", FleetCommandTests.inputs, "-o", rows])
        #expect(!piped.stderr.contains("\u{1B}") && piped.stderr.hasPrefix("fleet: 13 inputs: 0 analysed"))
    }

    @Test func usageErrorsExitTwoAndForeignFilesAreNotTouched() throws {
        let precious = FleetCommandTests.directory.file("precious.txt")
        try "my notes\nmore notes\n".write(toFile: precious, atomically: false, encoding: .utf8)
        let inputs = FleetCommandTests.inputs
        for words in [["fleet", "-o", "x.ndjson"], ["fleet", inputs], ["fleet", inputs, "-o", "-", "--json"],
                      ["fleet", inputs, "-o", precious], ["fleet", inputs, "-o", "a.ndjson", "--findings", "a.ndjson"],
                      ["fleet", inputs, "-o", "b.ndjson", "--jobs", "0"], ["fleet", inputs, "-o", "b.ndjson", "--memory-limit", "lots"]] {
            let result = try ToolRunner.run(words, currentDirectory: FleetCommandTests.directory.path)
            #expect(result.exitCode == 2, "\(words): \(result.stderr)")
        }
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "my notes\nmore notes\n")
        let help = try ToolRunner.run(["fleet", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("Usage: bgeo-forensics fleet [PATH…] [options]"))
    }
}

/// Trust, round 3: what the machine does wrong is never blamed on a dump, every file gets its row
/// whatever bytes its name holds, and no analysis outlives its fleet.
extension FleetCommandTests {
    /// A sample dump copied into `folder` under `name` (bytes: any but "/" and NUL), written with
    /// the C API so that the name is exactly those bytes. Returns the folder.
    static func dump(named name: [UInt8], in folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let data = try Data(contentsOf: URL(fileURLWithPath: ReportE2E.packageRoot + "/Samples/healthy-day.db"))
        let path = Array(folder.utf8) + [0x2F] + name + [0]
        let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) } }
        try #require(fd >= 0, "cannot create the file: \(String(cString: strerror(errno)))")
        defer { close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        try #require(written == data.count)
        return folder
    }

    /// A TMPDIR that cannot hold a folder (a regular file, or a path under one: even root cannot
    /// make a folder there) used to stop the whole run; it is each dump's failed row, naming the
    /// folder and the reason, and a resume with a usable TMPDIR retries and analyses it.
    @Test(arguments: ["", "/sub"])
    func aTMPDIRThatCannotHoldAFolderIsAFailedRowThatAResumeRetries(under: String) throws {
        let folder = FleetCommandTests.directory.file("no-tmp-\(UUID().uuidString)")
        _ = try FleetCommandTests.dump(named: Array("dump.db".utf8), in: folder)
        let file = folder + "/tmp-is-a-file"
        try "not a folder".write(toFile: file, atomically: false, encoding: .utf8)
        let rows = folder + "/rows.ndjson"
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = file + under
        let refused = try ToolRunner.run(["fleet", folder + "/dump.db", "-o", rows, "--json"], environment: environment)
        #expect(refused.exitCode == 0, "\(refused.stderr)")
        let row = try #require(try FleetCommandTests.lines(rows).first)
        #expect(row["status"] as? String == "failed" && row["exitCode"] as? Int == 1, "\(row)")
        let error = row["error"] as? String ?? ""
        #expect(error.contains(file + under) && error.contains("Not a directory") && error.hasSuffix("."), "\(error)")
        #expect(row["sha256"] as? String == (try EvidenceCopy.sha256(ofFile: folder + "/dump.db")))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a folder")
        let resumed = try ToolRunner.run(["fleet", folder + "/dump.db", "-o", rows, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any])
        #expect(summary["analysed"] as? Int == 1 && summary["droppedRows"] as? Int == 1, "\(resumed.stdout)")
        #expect(try FleetCommandTests.lines(rows).map { $0["status"] as? String } == ["ok"])
    }

    static var noPrivateMount: String? {
        if let reason = PrivateMount.unavailable { return reason }
        let probe = try? ReportE2E.run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/true"])
        return probe?.exitCode == 0 ? nil : "unshare -m is not permitted here: \(probe?.stderr ?? "")"
    }

    /// A TMPDIR with no room (a real 64 kB tmpfs in a private mount namespace) made valid dumps
    /// `not_a_dump` rows a resume never retried: now a failed row saying so, nothing left in the
    /// tmpfs, `inspect` exits 1 with the same sentence, and a resume with room analyses the dump.
    @Test(.enabled(if: FleetCommandTests.noPrivateMount == nil, "\(FleetCommandTests.noPrivateMount ?? "")"))
    func aFullTMPDIRIsAFailedRowNeverNotADump() throws {
        let folder = FleetCommandTests.directory.file("full-tmp-\(UUID().uuidString)")
        _ = try FleetCommandTests.dump(named: Array("dump.db".utf8), in: folder)
        let mount = folder + "/tmp"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let rows = folder + "/rows.ndjson"
        let full = try PrivateMount.run(["fleet", folder + "/dump.db", "-o", rows], tmpfs: mount, kilobytes: 64,
                                        before: "export TMPDIR='\(mount)'")
        #expect(full.exitCode == 0, "\(full.stderr)")
        #expect(!full.stdout.contains("LEFT:"), "\(full.stdout)")
        let row = try #require(try FleetCommandTests.lines(rows).first)
        #expect(row["status"] as? String == "failed" && row["exitCode"] as? Int == 1, "\(row)")
        let error = row["error"] as? String ?? ""
        #expect(error.contains(mount) && error.contains("No space left on device"), "\(error)")
        // A whole dump is read where it lies: inspect needs no room in TMPDIR for it.
        let inPlace = try PrivateMount.run(["inspect", folder + "/dump.db"], tmpfs: mount, kilobytes: 64, before: "export TMPDIR='\(mount)'")
        #expect(inPlace.exitCode == 0, "\(inPlace.stderr)")
        // A -journal beside it means a copy (the journal is applied to the copy): no room for it.
        try Data().write(to: URL(fileURLWithPath: folder + "/dump.db-journal"))
        let inspect = try PrivateMount.run(["inspect", folder + "/dump.db"], tmpfs: mount, kilobytes: 64, before: "export TMPDIR='\(mount)'")
        try FileManager.default.removeItem(atPath: folder + "/dump.db-journal")
        #expect(inspect.exitCode == 1, "\(inspect.stderr)")
        #expect(inspect.stderr.contains("was not read: its private copy cannot be made in \(mount) (No space left on device)"), "\(inspect.stderr)")
        #expect(!inspect.stdout.contains("LEFT:"), "\(inspect.stdout)")
        let resumed = try ToolRunner.run(["fleet", folder + "/dump.db", "-o", rows])
        #expect(resumed.exitCode == 0)
        #expect(try FleetCommandTests.lines(rows).map { $0["status"] as? String } == ["ok"])
    }

    /// An analysis that runs out of file descriptors (a real `ulimit -n`, from the tightest an
    /// analysis can start with up to one it finishes with) is `ok` or `failed`, never `not_a_dump`.
    @Test func anAnalysisOutOfDescriptorsIsNeverNotADump() throws {
        let folder = FleetCommandTests.directory.file("fds-\(UUID().uuidString)")
        _ = try FleetCommandTests.dump(named: Array("dump.db".utf8), in: folder)
        var statuses: [Int: String] = [:]
        for limit in 4...16 {
            let result = try ReportE2E.run("/bin/sh", ["-c", "ulimit -n \(limit) && exec \"$0\" fleet --worker \"$1\"",
                                                       ToolRunner.executable, folder + "/dump.db"])
            guard let line = result.stdout.split(separator: "\n").first,
                  let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            statuses[limit] = row["status"] as? String
            #expect(row["status"] as? String != "not_a_dump", "ulimit -n \(limit): \(row["error"] ?? "")")
        }
        #expect(statuses.values.contains("failed") && statuses.values.contains("ok"), "\(statuses)")
    }

    /// A dump whose name holds bytes that are not UTF-8 (0xFF 0xFE) got no row from a folder walk,
    /// and `inspect` said "no such file": now its row is `ok`, `path` shows the bytes as `\x{ff}`,
    /// `pathBytes` holds them exactly, and `fleet FILE` and `inspect` open it by that name.
    @Test func aDumpNamedWithBytesThatAreNotUTF8GetsItsRowAndOpens() throws {
        let folder = try FleetCommandTests.dump(named: Array("dump-".utf8) + [0xFF, 0xFE] + Array(".db".utf8),
                                                in: FleetCommandTests.directory.file("bytes-\(UUID().uuidString)"))
        let raw = Array(folder.utf8) + Array("/dump-".utf8) + [0xFF, 0xFE] + Array(".db".utf8)
        let rows = FleetCommandTests.directory.file("bytes-\(UUID().uuidString).ndjson")
        let walked = try ToolRunner.run(["fleet", folder, "-o", rows])
        #expect(walked.exitCode == 0, "\(walked.stderr)")
        let lines = try FleetCommandTests.lines(rows)
        #expect(lines.count == 1)
        let row = try #require(lines.first)
        #expect(row["status"] as? String == "ok", "\(row)")
        #expect(row["path"] as? String == folder + "/dump-\\x{ff}\\x{fe}.db")
        #expect((row["pathBytes"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init) == raw)
        #expect(row["sha256"] as? String == (try EvidenceCopy.sha256(ofFile: ReportE2E.packageRoot + "/Samples/healthy-day.db")))

        // The name as the shell passes it: raw bytes in argv.
        let named = "exec \"$0\" \"$1\" \"$2/dump-$(printf '\\377\\376').db\""
        let inspect = try ReportE2E.run("/bin/sh", ["-c", named, ToolRunner.executable, "inspect", folder])
        #expect(inspect.exitCode == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("dump-\\x{ff}\\x{fe}.db") && !inspect.stdout.contains("\u{FFFD}"), "\(inspect.stdout)")
        let single = FleetCommandTests.directory.file("bytes-\(UUID().uuidString).ndjson")
        let fleet = try ReportE2E.run("/bin/sh", ["-c", named + " -o \"$3\"", ToolRunner.executable, "fleet", folder, single])
        #expect(fleet.exitCode == 0, "\(fleet.stderr)")
        let one = try #require(try FleetCommandTests.lines(single).first)
        #expect(one["status"] as? String == "ok" && one["pathBytes"] as? String == row["pathBytes"] as? String, "\(one)")
    }

    /// The children of `pid` (from /proc), and whether a process is still running (a zombie
    /// waiting for its new parent to reap it has ended).
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.range(of: ")", options: .backwards) else { return false }
            let fields = stat[close.upperBound...].split(separator: " ")
            return fields.count > 2 && pid_t(fields[1]) == pid
        }
    }

    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.range(of: ")", options: .backwards) else { return false }
        return stat[close.upperBound...].split(separator: " ").first != "Z"
    }

    /// `kill -9` of the fleet left its analyses running (no longer bound by --timeout) and their
    /// folders behind: now the analysis ends within a few seconds, and TMPDIR is left empty.
    @Test func aFleetKilledWithSIGKILLLeavesNoAnalysisAndNoFolder() throws {
        let folder = FleetCommandTests.directory.file("kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Big enough that its analysis takes many seconds: it is running when the fleet dies.
        let big = try ToolRunner.run(["simulate", "--scenario", "healthy-day", "--records", "80000", "-o", folder + "/big.db"])
        try #require(big.exitCode == 0, "\(big.stderr)")
        let temporary = TestDirectory("fleet-kill-tmp")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolRunner.executable)
        process.arguments = ["fleet", folder + "/big.db", "-o", folder + "/rows.ndjson", "--jobs", "1"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the analysis to be under way: its process started, its private folder made
        // (the dump is read where it lies; the folder holds the analysis's work files).
        var workers: [pid_t] = []
        let started = Date().addingTimeInterval(60)
        func folderMade() -> Bool {
            !((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).isEmpty
        }
        while Date() < started, workers.isEmpty || !folderMade() {
            workers = FleetCommandTests.children(of: process.processIdentifier)
            usleep(20_000)
        }
        try #require(!workers.isEmpty && folderMade(), "the analysis never started")
        kill(process.processIdentifier, SIGKILL)
        // Waited for only afterwards: Foundation learns of the end through a socket every process
        // it started inherits, so waiting first would also wait for the analysis.
        defer { process.waitUntilExit() }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, workers.contains(where: FleetCommandTests.isRunning)
            || !((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).isEmpty {
            usleep(50_000)
        }
        #expect(!workers.contains(where: FleetCommandTests.isRunning), "analysis \(workers) still running after its fleet died")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "folders left behind")
        for worker in workers where FleetCommandTests.isRunning(worker) { kill(worker, SIGKILL) }
    }
}
