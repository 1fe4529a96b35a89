import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `sanitize` run as a user would, on every sample and on a dump with secrets planted in every
/// place the contract allows. The output file itself is searched (its raw bytes, not a query),
/// opened by the `sqlite3` CLI, and read by every command; the diagnosis must not change.
@Suite struct SanitizeCommandTests {
    static let root = ReportE2E.packageRoot
    static var samples: [String] { ReportSamplesTests.samples }

    // MARK: helpers

    /// The secrets the dump's own redactor knows (state, config lines), plus every header value.
    static func knownSecrets(_ path: String) throws -> [String] {
        let dump = try Dump(path: path)
        var secrets = dump.makeRedactor().knownSecrets.map(\.text)
        for config in [dump.engineState().config].compactMap({ $0 }) {
            for key in ["headers"] { for header in config[key]?.objectValue ?? JSONObject() { if let s = header.value.stringValue { secrets.append(s) } } }
        }
        return secrets.filter { $0.count >= 6 }
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func leaked(_ needles: [String], in path: String) throws -> [String] {
        let raw = try bytes(path)
        return needles.filter { raw.range(of: Data($0.utf8)) != nil }
    }

    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    static func run(_ words: [String], in dir: String? = nil) throws -> ToolResult {
        try ToolRunner.run(words, currentDirectory: dir)
    }

    /// The parts of `timeline --json` a diagnosis is made of: per finding its code, severity,
    /// rule, summary and every evidence item (row ids, uuids, note, omitted counts).
    static func diagnosis(_ path: String) throws -> [JSONValue] {
        let result = try run(["timeline", path, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        return try json(result.stdout)["findings"]?.arrayValue ?? []
    }

    /// `replay --json --fixes` without what names the file or places the fixes: decision
    /// counts, odometers, contributors, diagnosis, and each fix's decision and odometer.
    static func replay(_ path: String, extra: [String] = []) throws -> JSONValue {
        let result = try run(["replay", path, "--json", "--fixes"] + extra)
        #expect(result.exitCode == 0, "\(result.stderr)")
        guard case .object(var object) = try json(result.stdout) else { return .null }
        for key in ["dump", "inputs", "warnings"] { object[key] = nil }
        object["decisions"] = .array((object["decisions"]?.arrayValue ?? []).map { decision in
            var d = decision.objectValue ?? JSONObject()
            d["latitude"] = nil
            d["longitude"] = nil
            return .object(d)
        })
        return .object(object)
    }

    static func sideFiles(_ path: String) -> [String] {
        ["-wal", "-shm", "-journal"].map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// The `sqlite3` CLI, read-only (the judge the issue names).
    static func sqlite3(_ path: String, _ sql: String) throws -> String {
        let result = try ReportE2E.run(ReportE2E.tool("sqlite3") ?? "/usr/bin/sqlite3", ["-readonly", path, sql])
        return (result.stdout + result.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Copies a sample (and its -wal) into `dir`.
    static func copySample(_ name: String, to dir: TestDirectory) throws -> String {
        let target = dir.file(name + ".db")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: "\(root)/Samples/\(name).db\(suffix)") {
            try FileManager.default.copyItem(atPath: "\(root)/Samples/\(name).db\(suffix)", toPath: target + suffix)
        }
        return target
    }

    // MARK: every sample

    @Test(arguments: ReportSamplesTests.samples)
    func everySampleLosesEverySecretAndKeepsItsDiagnosis(_ name: String) throws {
        let dir = TestDirectory("sanitize-\(name)")
        let dump = try Self.copySample(name, to: dir)
        let out = dir.file("out.db")
        let before = try EvidenceCopy.sha256(ofFile: dump)
        let result = try Self.run(["sanitize", dump, "-o", out, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Sanitised") && result.stderr.contains("sha256"))
        #expect(try EvidenceCopy.sha256(ofFile: dump) == before, "the original changed")
        #expect(Self.sideFiles(out).isEmpty, "a journal or WAL was left beside the output")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".sanitize-") }.isEmpty)
        let report = try Self.json(result.stdout)
        #expect(report["outputSha256"]?.stringValue == (try EvidenceCopy.sha256(ofFile: out)))
        #expect(report["evidenceUnchanged"] == true)
        // The file itself, not a query.
        let secrets = try Self.knownSecrets(dump)
        #expect(name == "longping" || !secrets.isEmpty, "the sample holds secrets to remove")
        #expect(try Self.leaked(secrets, in: out).isEmpty)
        #expect(try Self.sqlite3(out, "PRAGMA integrity_check; PRAGMA freelist_count;") == "ok\n0")
        #expect(try Self.diagnosis(out) == (try Self.diagnosis(dump)), "timeline findings changed")
        #expect(try Self.replay(out) == (try Self.replay(dump)), "replay decisions or odometers changed")
        let inspect = try Self.run(["inspect", out])
        #expect(inspect.exitCode == 0 && inspect.stdout.contains("this dump was sanitised"))
        #expect(try Self.json(try Self.run(["inspect", out, "--json"]).stdout)["sanitized"]?["summary"] != nil)
        #expect(try Self.run(["timeline", out]).stdout.contains("this dump was sanitised"))
        #expect(try Self.json(try Self.run(["timeline", out, "--json"]).stdout)["sanitized"] != nil)
        #expect(try Self.json(try Self.run(["inspect", out, "--json"]).stdout)["format"]
            == (try Self.json(try Self.run(["inspect", dump, "--json"]).stdout)["format"]), "same format out as in")
    }

    @Test func coordsKeepLeavesReplayIdenticalToo() throws {
        let dir = TestDirectory("sanitize-keep")
        for name in ["teleports", "stranded-refresh"] {
            let dump = try Self.copySample(name, to: dir)
            let out = dir.file(name + "-keep.db")
            #expect(try Self.run(["sanitize", dump, "-o", out, "--coords", "keep"]).exitCode == 0)
            #expect(try Self.replay(out) == (try Self.replay(dump)))
            #expect(try Self.replay(out, extra: ["--set", "locationFilterPolicy=Adjust"])
                == (try Self.replay(dump, extra: ["--set", "locationFilterPolicy=Adjust"])))
        }
    }

    @Test func everyCommandReadsASanitisedDump() throws {
        let dir = TestDirectory("sanitize-commands")
        let dump = try Self.copySample("stranded-refresh", to: dir)
        let out = dir.file("out.db")
        #expect(try Self.run(["sanitize", dump, "-o", out]).exitCode == 0)
        for words in [["inspect", out], ["locations", out, "--format", "ndjson"], ["logs", out, "--limit", "0"], ["replay", out],
                      ["timeline", out], ["report", out, "-o", dir.file("r.html")], ["gpx", out, "-o", dir.file("t.gpx")],
                      ["resync", out, "--url", "http://127.0.0.1:9/never", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh", "--dry-run", "--work", dir.file("work")]] {
            let result = try Self.run(words, in: dir.path)
            #expect(result.exitCode == 0, "\(words.joined(separator: " ")): \(result.stderr)")
            #expect((result.stdout + result.stderr).contains("this dump was sanitised"), "\(words[0]) does not say so")
        }
        let html = try String(contentsOfFile: dir.file("r.html"), encoding: .utf8)
        #expect(html.contains("Sanitised") && html.contains("this dump was sanitised"))
        // Same count of rows as the original, read through the same commands.
        let a = try Self.run(["locations", dump, "--format", "ndjson"]).stdout.split(separator: "\n").count
        let b = try Self.run(["locations", out, "--format", "ndjson"]).stdout.split(separator: "\n").count
        #expect(a == b && a > 0)
        let logsA = try Self.run(["logs", dump, "--limit", "0", "--format", "ndjson"]).stdout.split(separator: "\n").count
        let logsB = try Self.run(["logs", out, "--limit", "0", "--format", "ndjson"]).stdout.split(separator: "\n").count
        #expect(logsA == logsB)
    }

    @Test func theWALIsFoldedInAndTheEvidenceIsUntouched() throws {
        let dir = TestDirectory("sanitize-wal")
        let dump = try Self.copySample("wal-mode", to: dir)
        let before = try [dump, dump + "-wal"].map { try EvidenceCopy.sha256(ofFile: $0) }
        let out = dir.file("out.db")
        #expect(try Self.run(["sanitize", dump, "-o", out]).exitCode == 0)
        #expect(try [dump, dump + "-wal"].map { try EvidenceCopy.sha256(ofFile: $0) } == before)
        #expect(!FileManager.default.fileExists(atPath: dump + "-shm"))
        #expect(Self.sideFiles(out).isEmpty)
        let queued = try Self.json(try Self.run(["inspect", dump, "--json"]).stdout)["queue"]?["count"]
        #expect(try Self.sqlite3(out, "SELECT count(*) FROM location_events") == queued?.jsonText, "rows living only in the -wal are in the copy")
        #expect(try Self.sqlite3(out, "PRAGMA journal_mode") == "delete", "one self-contained file")
    }

    // MARK: the hostile dump

    @Test(arguments: ["current", "legacy", "longping"])
    func aHostileDumpKeepsNoPlantedSecret(_ layoutName: String) throws {
        let dir = TestDirectory("sanitize-hostile-\(layoutName)")
        let dump = dir.file("hostile.db")
        let layout: DumpWriter.Layout = layoutName == "current" ? .current : layoutName == "legacy" ? .legacy(withState: true) : .longping
        try HostileDump.write(to: dump, layout: layout)
        let planted = HostileDump.secrets.filter { secret in (try? Self.bytes(dump).range(of: Data(secret.utf8))) != nil }
        #expect(layoutName != "current" || planted.count == HostileDump.secrets.count, "the plants are really in the input")
        // A LongPing dump records no config: only what sits under a sensitive key can be known as a secret.
        let secrets = layoutName == "longping" ? [HostileDump.extrasToken] : HostileDump.secrets
        for options in [[], ["--extras", "keep", "--urls", "keep", "--coords", "keep"], ["--extras", "drop", "--coords", "coarsen=200"]] {
            let out = dir.file("out-\(options.count).db")
            let result = try Self.run(["sanitize", dump, "-o", out] + options)
            #expect(result.exitCode == 0, "\(options): \(result.stderr)")
            #expect(try Self.leaked(secrets, in: out).isEmpty, "\(options)")
            #expect(try Self.sqlite3(out, "PRAGMA integrity_check; PRAGMA freelist_count;") == "ok\n0")
            #expect(Self.sideFiles(out).isEmpty)
            #expect(try Self.diagnosis(out) == (try Self.diagnosis(dump)), "\(options): findings changed")
            if options.isEmpty {
                let left = try Self.leaked(HostileDump.customerValues + [HostileDump.urlPath], in: out)
                #expect(left.isEmpty, "customer data left: \(left)")
            }
        }
        if layoutName == "current" {
            // The same token in two places still reads the same.
            let out = dir.file("out-0.db")
            let logs = try Self.run(["logs", out, "--limit", "0", "--format", "ndjson"]).stdout
            #expect(logs.components(separatedBy: Redactor.fingerprint(HostileDump.rotatedAccess)).count > 2)
            #expect(try Self.sqlite3(out, "SELECT count(*) FROM custom_notes") == "1")
        }
    }

    @Test func theReportSaysWhatWasChangedAndTheMarkerRecordsIt() throws {
        let dir = TestDirectory("sanitize-report")
        let dump = dir.file("hostile.db")
        try HostileDump.write(to: dump)
        let result = try Self.run(["sanitize", dump, "-o", dir.file("out.db"), "--json", "--coords", "coarsen=500"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let report = try Self.json(result.stdout)
        #expect(report["options"] == ["extras": "hash", "urls": "host", "coords": "coarsen=500"])
        #expect(report["coordinates"]?["replayIdentical"] == false)
        #expect(result.stderr.contains("may differ"), "coarsen says replay may change")
        let tables = report["tables"]?.arrayValue ?? []
        let log = tables.first { $0["table"] == "log_entries" }
        #expect((log?["columns"]?["data"]?["secrets"]?.intValue ?? 0) >= 8)
        #expect((log?["columns"]?["message"]?["extras"]?.intValue ?? 0) == 1, "the app line's message is hashed")
        #expect((tables.first { $0["table"] == "location_events" }?["columns"]?["json"]?["coordinates"]?.intValue ?? 0) == 40)
        #expect(report["verification"]?["learnedSecretsInBytes"] == 0 && report["verification"]?["integrityCheck"] == "ok")
        let inspect = try Self.run(["inspect", dir.file("out.db")]).stdout
        #expect(inspect.contains("positions coarsened (replay results may differ"))
        let replay = try Self.run(["replay", dir.file("out.db")])
        #expect(replay.stderr.contains("replay results may differ"))
    }

    // MARK: refusals and failures

    @Test func refusesWhatWouldDestroyEvidence() throws {
        let dir = TestDirectory("sanitize-refusals")
        let dump = try Self.copySample("healthy-day", to: dir)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: dir.file("existing.db")))
        let exists = try Self.run(["sanitize", dump, "-o", dir.file("existing.db")])
        #expect(exists.exitCode == 2 && exists.stderr.contains("--force"))
        #expect(try String(contentsOfFile: dir.file("existing.db"), encoding: .utf8) == "precious")
        let same = try Self.run(["sanitize", dump, "-o", dump, "--force"])
        #expect(same.exitCode == 2 && same.stderr.contains("the dump itself"))
        #expect(try Self.run(["sanitize", dump]).exitCode == 2)
        #expect(try Self.run(["sanitize", dump, "-o", dir.file("x.db"), "--coords", "blur"]).exitCode == 2)
        #expect(try Self.run(["sanitize", dump, "-o", dir.file("x.db"), "--extras", "maybe"]).exitCode == 2)
        #expect(try Self.run(["sanitize", dir.file("missing.db"), "-o", dir.file("x.db")]).exitCode == 2)
        let forced = try Self.run(["sanitize", dump, "-o", dir.file("existing.db"), "--force"])
        #expect(forced.exitCode == 0, "\(forced.stderr)")
        #expect(try Self.sqlite3(dir.file("existing.db"), "PRAGMA integrity_check") == "ok")
        #expect(try Self.run(["sanitize", "--help"]).stdout.contains("--coords"))
    }

    @Test func anInterruptedRunLeavesNothingBehind() throws {
        let dir = TestDirectory("sanitize-interrupt")
        let dump = dir.file("big.db")
        #expect(try Self.run(["simulate", "--records", "6000", "-o", dump]).exitCode == 0)
        // Started the way a shell starts it: the test runner's threads block signals, and a child
        // inherits that mask, so a tiny exec wrapper clears it first.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
                             ToolRunner.executable, "sanitize", dump, "-o", dir.file("out.db")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the working database exists, then interrupt.
        let deadline = Date().addingTimeInterval(60)
        var sawWorkFile = false
        while Date() < deadline, process.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            if names.contains(where: { $0.contains(".sanitize-") && $0.hasSuffix(".work") }) {
                sawWorkFile = true
                break
            }
            usleep(2_000)
        }
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(sawWorkFile, "the run ended before it could be interrupted")
        #expect(process.terminationReason == .uncaughtSignal)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["big.db"], "left behind: \(left)")
    }
}
