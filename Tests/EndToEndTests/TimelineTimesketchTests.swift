import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `timeline --format timesketch` run as a user would, judged by others: every line of every sample
/// is what Timesketch's JSONL import requires (`message`, `datetime` with an offset,
/// `timestamp_desc`), DuckDB reads the file and its counts are `timeline --json`'s and SQLite's own
/// count of the log rows, the window is kept, no secret shows, and memory stays flat on a big log.
@Suite struct TimelineTimesketchTests {
    static let directory = TestDirectory("timesketch")
    static let samplesFolder = ReportE2E.packageRoot + "/Samples"

    static var samples: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: samplesFolder)) ?? []).filter { $0.hasSuffix(".db") }.sorted()
    }

    /// The keys every line carries, in the order written.
    static let keys = ["message", "datetime", "timestamp", "timestamp_desc", "event", "log_row_id", "level", "uuid",
                       "status", "finding_code", "severity", "responsible", "sha256"]

    static func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line.prefix(200))")
        }
    }

    /// DuckDB's reading of `file` (a copy named events.jsonl in its own folder): the count of each
    /// `timestamp_desc`, the type it gives `datetime`, the lines whose `datetime` and `timestamp`
    /// disagree, the log-row lines of the rows that are themselves refreshes, backoffs, prunes and
    /// drops, and the distinct log row ids.
    static func duckDB(_ jsonl: String, label: String) throws -> [String: Any] {
        let folder = directory.file("duckdb-" + label)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try jsonl.write(toFile: folder + "/events.jsonl", atomically: false, encoding: .utf8)
        let script = """
            import duckdb, json
            con = duckdb.connect()
            con.execute("create view t as select * from read_json_auto('events.jsonl', format='newline_delimited')")
            out = {}
            out['counts'] = dict(con.execute("select timestamp_desc, count(*) from t group by 1").fetchall())
            out['datetimeType'] = con.execute("select data_type from information_schema.columns where table_name = 't' and column_name = 'datetime'").fetchone()[0]
            out['timestampMismatches'] = con.execute("select count(*) from t where epoch_us(datetime) <> timestamp").fetchone()[0]
            out['rowEvents'] = dict(con.execute("select event::varchar, count(*) from t where timestamp_desc = 'Log row written' group by 1").fetchall())
            out['distinctRows'] = con.execute("select count(distinct log_row_id) from t where timestamp_desc = 'Log row written'").fetchone()[0]
            print(json.dumps(out))
            """
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
        try #require(process.terminationStatus == 0, "DuckDB: \(errors)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// SQLite's own count of the log rows whose `ts` it reads as a time (`julianday`), in the
    /// window when one is given; read from a copy (the WAL beside it), never from the sample.
    static func sqliteLogRows(_ sample: String, since: String? = nil, until: String? = nil) throws -> Int {
        let folder = directory.file("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: samplesFolder + "/" + sample + suffix) {
            try FileManager.default.copyItem(atPath: samplesFolder + "/" + sample + suffix, toPath: folder + "/" + sample + suffix)
        }
        let path = folder + "/" + sample
        let hasLog = try ReportE2E.run("/usr/bin/sqlite3", [path, "select count(*) from sqlite_master where name = 'log_entries'"])
        guard hasLog.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1" else { return 0 }
        var query = "select count(*) from log_entries where julianday(ts) is not null"
        if let since { query += " and julianday(ts) >= julianday('\(since)')" }
        if let until { query += " and julianday(ts) <= julianday('\(until)')" }
        let result = try ReportE2E.run("/usr/bin/sqlite3", [path, query])
        try #require(result.exitCode == 0, "sqlite3: \(result.stderr)")
        return try #require(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// `datetime` as Foundation reads ISO 8601 with an explicit offset (not the tool's own parser).
    static func instant(_ datetime: String) -> Date? {
        guard datetime.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d/) != nil else { return nil }
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return parser.date(from: datetime)
    }

    @Test(arguments: TimelineTimesketchTests.samples)
    func everyLineIsATimesketchEvent(sample: String) throws {
        let result = try ToolRunner.run(["timeline", Self.samplesFolder + "/" + sample, "--format", "timesketch"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let lines = try Self.lines(result.stdout)
        #expect(!lines.isEmpty)
        let kinds = Set(TimelineTimesketchWriter.Kind.allCases.map(\.rawValue))
        let sha = try EvidenceCopy.sha256(ofFile: Self.samplesFolder + "/" + sample)
        for line in lines {
            #expect(line.keys.sorted() == Self.keys.sorted(), "\(line.keys.sorted())")
            let message = line["message"] as? String ?? "", datetime = line["datetime"] as? String ?? ""
            let desc = line["timestamp_desc"] as? String ?? ""
            #expect(!message.isEmpty && kinds.contains(desc), "\(line)")
            let date = try #require(Self.instant(datetime), "datetime \(datetime) is not ISO 8601 with an offset")
            #expect(Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) == (line["timestamp"] as? NSNumber)?.int64Value,
                    "\(datetime) vs \(line["timestamp"] ?? "nil")")
            #expect(line["sha256"] as? String == sha)
        }
    }

    @Test(.enabled(if: FleetCommandTests.hasDuckDB, "DuckDB is not installed: pip install duckdb"),
          arguments: TimelineTimesketchTests.samples)
    func duckDBCountsAreTheTimelines(sample: String) throws {
        let path = Self.samplesFolder + "/" + sample
        let result = try ToolRunner.run(["timeline", path, "--format", "timesketch"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let read = try Self.duckDB(result.stdout, label: sample)
        let timeline = try JSONParser.parse(try ToolRunner.run(["timeline", path, "--json"]).stdout)
        try Self.expectCounts(read, match: timeline, sqliteRows: try Self.sqliteLogRows(sample), sample)
    }

    /// The counts DuckDB read are the timeline's: log rows (and SQLite's count of them, each row
    /// once), attempts, gaps and findings; and one refresh, backoff, prune or drop per row that is one.
    static func expectCounts(_ read: [String: Any], match timeline: JSONValue, sqliteRows: Int, _ label: String) throws {
        let counts = read["counts"] as? [String: Int] ?? [:]
        let rowEvents = read["rowEvents"] as? [String: Int] ?? [:]
        #expect(read["datetimeType"] as? String == "TIMESTAMP WITH TIME ZONE", "\(label): \(read)")
        #expect(read["timestampMismatches"] as? Int == 0, "\(label)")
        let logRows = try #require(timeline["logRows"]?.intValue)
        #expect(counts["Log row written", default: 0] == logRows, "\(label): \(counts)")
        #expect(sqliteRows == logRows && read["distinctRows"] as? Int == logRows, "\(label): SQLite counts \(sqliteRows)")
        #expect(timeline["omitted"]?["attempts"]?.intValue == 0 && timeline["omitted"]?["gaps"]?.intValue == 0)
        #expect(counts["Upload attempt", default: 0] == timeline["attempts"]?.arrayValue?.count, "\(label): \(counts)")
        #expect(counts["Gap start", default: 0] == timeline["gaps"]?.arrayValue?.count, "\(label): \(counts)")
        #expect(counts["Finding", default: 0] == timeline["findings"]?.arrayValue?.count, "\(label): \(counts)")
        for (desc, event) in [("Token refresh", "auth.refresh.result"), ("Backoff", "http.backoff"), ("Prune", "queue.prune"),
                              ("Records dropped", "queue.drop")] {
            #expect(counts[desc, default: 0] == rowEvents[event, default: 0], "\(label): \(desc)")
        }
    }

    /// `--since` / `--until`: only the window's log rows (SQLite counts the same), every log row line
    /// inside it, and the same attempts, gaps and findings as `timeline --json` with that window.
    @Test(.enabled(if: FleetCommandTests.hasDuckDB, "DuckDB is not installed: pip install duckdb"))
    func theWindowIsKept() throws {
        let since = "2026-07-24T09:00:00Z", until = "2026-07-24T13:30:00Z"
        let path = Self.samplesFolder + "/stranded-refresh.db"
        let window = ["--since", since, "--until", until]
        let result = try ToolRunner.run(["timeline", path, "--format", "timesketch"] + window)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let timeline = try JSONParser.parse(try ToolRunner.run(["timeline", path, "--json"] + window).stdout)
        let sqliteRows = try Self.sqliteLogRows("stranded-refresh.db", since: since, until: until)
        let allRows = try Self.sqliteLogRows("stranded-refresh.db")
        #expect(sqliteRows > 0 && sqliteRows < allRows, "the window must cut the log")
        try Self.expectCounts(try Self.duckDB(result.stdout, label: "window"), match: timeline, sqliteRows: sqliteRows, "window")
        let (start, end) = (try #require(Self.instant("2026-07-24T09:00:00.000+00:00")), try #require(Self.instant("2026-07-24T13:30:00.000+00:00")))
        for line in try Self.lines(result.stdout) where line["timestamp_desc"] as? String == "Log row written" {
            let date = try #require(Self.instant(line["datetime"] as? String ?? ""))
            #expect(date >= start && date <= end, "\(line["datetime"] ?? "")")
        }
    }

    /// The dump holding its secrets in every form that ever leaked: none of them in the Timesketch
    /// lines; with --show-secrets they are there (so the search can find them).
    @Test func noSecretInTheTimesketchLines() throws {
        let dump = Self.directory.file("forms.db")
        if !FileManager.default.fileExists(atPath: dump) { try SecretFormsDump.write(to: dump) }
        let redacted = try ToolRunner.run(["timeline", dump, "--format", "timesketch"])
        #expect(redacted.exitCode == 0, "\(redacted.stderr)")
        #expect(try Self.lines(redacted.stdout).count > 1000)
        for leak in SecretFormsDump.leaks where redacted.stdout.contains(leak) || redacted.stderr.contains(leak) {
            Issue.record("timeline --format timesketch shows \(leak)")
        }
        let shown = try ToolRunner.run(["timeline", dump, "--format", "timesketch", "--show-secrets"])
        for secret in [SecretFormsDump.bodyAccess, SecretFormsDump.basicCredentials, SecretFormsDump.headerLineKey,
                       SecretFormsDump.spacedAccess] {
            #expect(shown.stdout.contains(secret), "--show-secrets hid \(secret)")
        }
    }

    /// A drop row of 2,000 uuids (74 KB of them): its lines keep the uuid field under OpenSearch's
    /// 32,766-byte keyword limit (Timesketch before 2026-02 rejected such a line whole), list the
    /// first uuids in order and say in the message how many there are.
    @Test func aDropOfThousandsOfUuidsKeepsTheFieldUnderTheKeywordLimit() throws {
        let dump = try SanitizeCommandTests.copySample("poison-batch", to: Self.directory)
        let uuids = (0..<2_000).map { i in
            let hex = String(i, radix: 16)
            return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
        }
        let data = "{\"uuids\":[" + uuids.map { "\"\($0)\"" }.joined(separator: ",") + "],\"status\":422}"
        do {
            let db = try Database(path: dump, mode: .readWriteCreate)
            try db.prepare("INSERT INTO log_entries (ts, level, src, event, message, data) VALUES ('2026-07-24T09:00:00.000Z', 2, 'native', 'queue.drop', NULL, ?1)")
                .run([.text(data)])
        }
        let result = try ToolRunner.run(["timeline", dump, "--format", "timesketch"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let lines = try Self.lines(result.stdout)
        // The row's own line and its drop (a finding citing the drop lists its first 50: not cut).
        let big = lines.filter { ($0["uuid"] as? String)?.hasPrefix(uuids[0]) == true && $0["finding_code"] is NSNull }
        #expect(big.map { $0["timestamp_desc"] as? String } == ["Log row written", "Records dropped"])
        for line in big {
            let field = try #require(line["uuid"] as? String)
            #expect(field.utf8.count <= 32_000)
            let listed = field.split(separator: " ").map(String.init)
            #expect(listed.count == 864 && listed == Array(uuids.prefix(864)), "\(listed.count) listed")
            #expect((line["message"] as? String)?.hasSuffix(" (2000 uuids; the uuid field lists the first 864)") == true)
        }
        #expect((big.last?["message"] as? String)?.hasPrefix("Records dropped: 2000 records deleted from the queue after status 422") == true)
        #expect(lines.allSatisfy { (($0["uuid"] as? String)?.utf8.count ?? 0) <= 32_000 })
    }

    /// A long row's message is cut at 10,000 characters as the whole text would be, though only a
    /// start of its data is read: ASCII (the start suffices) and clusters of five bytes (the start
    /// holds too few characters, so the row is read whole).
    @Test func aLongRowIsCutAsItsWholeTextWouldBe() throws {
        let dump = try SanitizeCommandTests.copySample("healthy-day", to: Self.directory)
        // Written compact, as the redacted text is: one long string, and many short strings of one
        // cluster (an `e` and ten combining marks: 24 bytes for 4 characters with its punctuation).
        let cluster = "\"e" + String(repeating: "\u{301}", count: 10) + "\""
        let notes = ["\"" + String(repeating: "abc ", count: 20_000) + "\"",
                     "[" + Array(repeating: cluster, count: 5_000).joined(separator: ",") + "]"]
        do {
            let db = try Database(path: dump, mode: .readWriteCreate)
            for note in notes {
                try db.prepare("INSERT INTO log_entries (ts, level, src, event, message, data) VALUES ('2026-07-24T23:00:00.000Z', 3, 'native', 'test.note', NULL, ?1)")
                    .run([.text("{\"note\":" + note + "}")])
            }
        }
        let result = try ToolRunner.run(["timeline", dump, "--format", "timesketch"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let messages = try Self.lines(result.stdout).filter { $0["event"] as? String == "test.note" }.compactMap { $0["message"] as? String }
        #expect(messages.count == 2)
        for (message, note) in zip(messages, notes) {
            let whole = "test.note {\"note\":" + note + "}"
            let expected = String(whole.prefix(10_000)) + "… (cut at 10000 characters; `logs` shows the row whole)"
            #expect(message == expected, "\(message.count) characters, \(expected.count) expected")
        }
    }

    /// A log of 40,000-odd rows: the Timesketch lines (tens of MB) are written as the rows are read,
    /// so the run's peak memory is about `timeline --json`'s, not that plus the file.
    @Test func memoryStaysFlatOnABigLog() throws {
        let dump = Self.directory.file("big.db")
        let made = try ToolRunner.run(["simulate", "--records", "40000", "-o", dump])
        try #require(made.exitCode == 0, "\(made.stderr)")
        // Peak RSS of one child, measured by Python around it alone (this process runs many).
        func peak(_ arguments: [String], into file: String) throws -> Int {
            let script = """
                import resource, subprocess, sys
                with open(sys.argv[1], 'wb') as out:
                    code = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL).returncode
                print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
                """
            let result = try ReportE2E.run("/usr/bin/env", ["python3", "-c", script, file, ToolRunner.executable] + arguments)
            let words = result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            try #require(words.count == 2 && words[0] == "0", "\(arguments): \(result.stdout) \(result.stderr)")
            return try #require(Int(words[1]))  // KiB
        }
        let json = try peak(["timeline", dump, "--json"], into: Self.directory.file("big.json"))
        let jsonl = Self.directory.file("big.jsonl")
        let timesketch = try peak(["timeline", dump, "--format", "timesketch"], into: jsonl)
        let written = try #require(try FileManager.default.attributesOfItem(atPath: jsonl)[.size] as? Int)
        #expect(written > 25_000_000, "only \(written) bytes written")
        #expect(timesketch < json + 12 * 1024, "peak \(timesketch / 1024) MB vs timeline --json \(json / 1024) MB for \(written / 1_000_000) MB of lines")
    }

    @Test func formatAndJSONMustAgreeAndHelpSaysSo() throws {
        let path = Self.samplesFolder + "/healthy-day.db"
        let both = try ToolRunner.run(["timeline", path, "--json", "--format", "timesketch"])
        #expect(both.exitCode == 2 && both.stderr.contains("contradict"), "\(both.stderr)")
        let unknown = try ToolRunner.run(["timeline", path, "--format", "plaso"])
        #expect(unknown.exitCode == 2 && unknown.stderr.contains("timesketch"), "\(unknown.stderr)")
        let agreeing = try ToolRunner.run(["timeline", path, "--json", "--format", "json"])
        #expect(agreeing.exitCode == 0)
        #expect(try JSONParser.parse(agreeing.stdout)["logRows"] != nil)
        let help = try ToolRunner.run(["timeline", "--help"]).stdout
        #expect(help.contains("--format FORMAT") && help.contains("timesketch") && help.contains("timestamp_desc"))
    }
}
