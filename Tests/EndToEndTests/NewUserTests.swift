import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// What a new user trips over (issue 15), run as a user would on the committed samples: every
/// user error is exit 2 with one sentence, an empty result says why, typos get a suggestion.
@Suite struct NewUserTests {
    static func sample(_ name: String) -> String { ReportE2E.packageRoot + "/Samples/\(name).db" }

    /// One sentence on stderr: one line, naming `mentions`, and no platform error text.
    static func expectOneSentence(_ result: ToolResult, mentioning mentions: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.exitCode == 2, "exit \(result.exitCode): \(result.stderr)", sourceLocation: sourceLocation)
        let text = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!text.isEmpty && !text.contains("\n"), "not one line: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(text.contains(mentions), "\(text)", sourceLocation: sourceLocation)
        for raw in ["NSCocoaErrorDomain", "Error Domain", "I/O error", "xmlNewTextWriter", "Illegal instruction", "Fatal error"] {
            #expect(!result.stderr.contains(raw), "\(raw) in: \(result.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func unusableOutputPathsAreOneSentence() throws {
        let folder = TestDirectory("paths")
        try FileManager.default.createDirectory(atPath: folder.file("existing"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("d"), withIntermediateDirectories: true)
        try "x".write(toFile: folder.file("a_file"), atomically: true, encoding: .utf8)
        let healthy = NewUserTests.sample("healthy-day")
        let cases: [([String], String)] = [
            (["report", healthy, "-o", folder.file("existing") + "/"], "it is a folder"),
            (["report", healthy, "-o", folder.file("existing")], "it is a folder"),
            (["report", healthy, "-o", folder.file("a_file") + "/x.html"], "is a file, not a folder"),
            (["report", "--all", ReportE2E.packageRoot + "/Samples", "-o", folder.file("a_file")], "a folder is needed"),
            (["gpx", healthy, "-o", folder.file("existing")], "it is a folder"),
            (["gpx", healthy, "-o", folder.file("missing/trace.gpx")], "does not exist"),
            (["simulate", "--scenario", "healthy-day", "-o", "d"], "it is a folder"),  // a one-letter name used to trap
            (["simulate", "--all", "-o", folder.file("a_file")], "a folder is needed"),
            (["resync", NewUserTests.sample("stranded-refresh"), "--url", "http://127.0.0.1:9/x", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh", "--work", folder.file("a_file"),
              "--deadline", "1s"], "a file with that name already exists"),
        ]
        for (words, reason) in cases {
            let result = try ToolRunner.run(words, currentDirectory: folder.path)
            NewUserTests.expectOneSentence(result, mentioning: reason)
        }
    }

    @Test func emptyListingsSayWhyAndStayValid() throws {
        let stranded = NewUserTests.sample("stranded-refresh")
        let csv = try ToolRunner.run(["logs", stranded, "--src", "bogus", "--format", "csv"])
        #expect(csv.exitCode == 0)
        #expect(csv.stdout == LogListing.columns.joined(separator: ",") + "\n", "an empty CSV keeps its header")
        #expect(csv.stderr.contains("No log rows match --src bogus") && csv.stderr.contains("native, js"), "\(csv.stderr)")

        let prefix = try ToolRunner.run(["logs", stranded, "--event", "auth"])
        #expect(prefix.stderr.contains("--event 'auth.*'"), "\(prefix.stderr)")
        let typo = try ToolRunner.run(["logs", stranded, "--event", "htp.request"])
        #expect(typo.stderr.contains("did you mean --event http.request?"), "\(typo.stderr)")

        let longping = try ToolRunner.run(["logs", NewUserTests.sample("longping"), "--format", "json"])
        #expect(longping.exitCode == 0)
        #expect(try JSONParser.parse(longping.stdout).arrayValue?.isEmpty == true)
        #expect(longping.stderr.contains("LongPing dump has no log"), "\(longping.stderr)")

        let none = try ToolRunner.run(["locations", NewUserTests.sample("healthy-day"), "--uuid", "nope", "--format", "json"])
        #expect(try JSONParser.parse(none.stdout).arrayValue?.isEmpty == true)
        #expect(none.stderr.contains("No records match --uuid nope"), "\(none.stderr)")
    }

    @Test func contradictionsAreRefused() throws {
        let healthy = NewUserTests.sample("healthy-day")
        for command in ["logs", "locations", "timeline"] {
            let result = try ToolRunner.run([command, healthy, "--since", "2026-07-25", "--until", "2026-07-24"])
            NewUserTests.expectOneSentence(result, mentioning: "is later than --until")
        }
        for command in ["logs", "locations"] {
            NewUserTests.expectOneSentence(try ToolRunner.run([command, healthy, "--json", "--format", "csv"]),
                                           mentioning: "--json and --format csv")
        }
    }

    /// `--until 2026-07-24` keeps the whole of the 24th (the sample day), and --help says so.
    @Test func aDateAloneInUntilMeansTheEndOfThatDay() throws {
        let healthy = NewUserTests.sample("healthy-day")
        let all = try ToolRunner.run(["logs", healthy, "--limit", "0", "--format", "ndjson"])
        let day = try ToolRunner.run(["logs", healthy, "--limit", "0", "--format", "ndjson", "--until", "2026-07-24"])
        #expect(day.exitCode == 0)
        let count = { (r: ToolResult) in r.stdout.split(separator: "\n").count }
        #expect(count(all) > 100 && count(day) == count(all), "\(count(day)) of \(count(all)) rows")
        for command in ["logs", "locations", "timeline"] {
            #expect(try ToolRunner.run([command, "--help"]).stdout.contains("end of that day"), "\(command) --help")
        }
    }

    @Test func durationsNeedAUnitAndZeroIsRefusedEverywhere() throws {
        let healthy = NewUserTests.sample("healthy-day")
        for command in ["timeline", "report", "gpx"] {
            NewUserTests.expectOneSentence(try ToolRunner.run([command, healthy, "--gap", "15"]), mentioning: "--gap needs a unit")
            NewUserTests.expectOneSentence(try ToolRunner.run([command, healthy, "--gap", "0s"]), mentioning: "longer than 0")
        }
    }

    @Test func aMisspeltWhatIfValueIsRefusedWhetherOrNotTheFilterIsOn() throws {
        let teleports = NewUserTests.sample("teleports")
        for extra in [[], ["--set", "disableLocationFilter=false"]] {
            let result = try ToolRunner.run(["replay", teleports, "--set", "locationFilterPolicy=Agressive"] + extra)
            NewUserTests.expectOneSentence(result, mentioning: "locationFilterPolicy takes Conservative, Adjust or PassThrough, not 'Agressive'")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func typosGetTheClosestName() throws {
        NewUserTests.expectOneSentence(try ToolRunner.run(["timelin", "x.db"]), mentioning: "Did you mean 'timeline'?")
        NewUserTests.expectOneSentence(try ToolRunner.run(["help", "timelin"]), mentioning: "Did you mean 'timeline'?")
        NewUserTests.expectOneSentence(try ToolRunner.run(["timeline", NewUserTests.sample("healthy-day"), "--findings-onyl"]),
                                       mentioning: "did you mean '--findings-only'?")
    }

    /// Every command that prints dump text takes --show-secrets.
    @Test func showSecretsIsAcceptedWhereverDumpTextIsPrinted() throws {
        for command in ["inspect", "locations", "logs", "replay", "timeline", "report", "gpx", "resync"] {
            #expect(try ToolRunner.run([command, "--help"]).stdout.contains("--show-secrets"), "\(command)")
        }
        let folder = TestDirectory("show-secrets")
        let replay = try ToolRunner.run(["replay", NewUserTests.sample("healthy-day"), "--show-secrets"])
        #expect(replay.exitCode == 0, "\(replay.stderr)")
        let gpx = try ToolRunner.run(["gpx", NewUserTests.sample("healthy-day"), "--show-secrets", "-o", folder.file("t.gpx")])
        #expect(gpx.exitCode == 0, "\(gpx.stderr)")
    }

    @Test func oneFindingIsSingular() throws {
        let folder = TestDirectory("singular")
        let result = try ToolRunner.run(["report", NewUserTests.sample("teleports")], currentDirectory: folder.path)
        #expect(result.stderr.contains("1 finding)"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.file("teleports.html")))
    }

    /// The what-if odometer change is the same number wherever it is shown, and a difference
    /// that rounds to nothing is never "-0.0 %".
    @Test func replayNumbersAgreeAndNeverShowNegativeZero() throws {
        let teleports = NewUserTests.sample("teleports")
        let filter = ["--set", "disableLocationFilter=false", "--set", "locationFilterPolicy=Conservative"]
        let plain = try ToolRunner.run(["replay", teleports] + filter)
        let compare = try ToolRunner.run(["replay", teleports, "--compare"] + filter)
        #expect(plain.stdout.contains("-1965937.0 m"), "\(plain.stdout)")
        #expect(compare.stdout.contains("-1965937.0"), "\(compare.stdout)")
        #expect(!compare.stdout.contains("-1965937.1"))
        let healthy = try ToolRunner.run(["replay", NewUserTests.sample("healthy-day")])
        #expect(!healthy.stdout.contains("-0.0"), "\(healthy.stdout)")
    }

    /// After a run, --dry-run reads the working copy and says so (0 pending is then its count).
    @Test func dryRunSaysWhichCopyItRead() throws {
        let folder = TestDirectory("dry-run")
        let stranded = NewUserTests.sample("stranded-refresh")
        let work = folder.file("work")
        let before = try ToolRunner.run(["resync", stranded, "--url", "http://127.0.0.1:9/x", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh", "--work", work, "--dry-run", "--requests", "1"])
        #expect(before.stdout.contains("read from the dump (no working copy yet)"), "\(before.stdout)")
        let run = try ToolRunner.run(["resync", stranded, "--url", "http://127.0.0.1:9/x", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh", "--work", work, "--max-attempts", "1"])
        #expect(run.exitCode == 3, "\(run.stderr)")
        let after = try ToolRunner.run(["resync", stranded, "--url", "http://127.0.0.1:9/x", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh", "--work", work, "--dry-run", "--requests", "1"])
        #expect(after.stdout.contains("read from the working copy \(work)/work.db (left by an earlier run"), "\(after.stdout)")
    }

    /// The text timeline lists 38 expected stationary gaps of stranded-refresh as one line
    /// (--all-gaps lists them), and heartbeats met between retries are one line.
    @Test func timelineTextCollapsesWhatIsExpected() throws {
        let stranded = NewUserTests.sample("stranded-refresh")
        let text = try ToolRunner.run(["timeline", stranded]).stdout
        let gapSection = text.components(separatedBy: "Tracking gaps").last ?? ""
        let gapLines = gapSection.split(separator: "\n").dropFirst()
        #expect(gapLines.count == 1, "\(gapLines)")
        #expect(gapLines.first?.contains("38 gaps") == true && gapLines.first?.contains("--all-gaps") == true)
        let all = try ToolRunner.run(["timeline", stranded, "--all-gaps"]).stdout
        #expect(all.components(separatedBy: "stationary (expected)").count - 1 == 38)
        let heartbeatLines = text.split(separator: "\n").filter { $0.contains(" heartbeat ") && $0.contains("#") }
        #expect(text.contains("heartbeat ×21 until 2026-07-24T16:28:59Z"), "\(heartbeatLines.joined(separator: "\n"))")
        #expect(heartbeatLines.count <= 8, "\(heartbeatLines.count) heartbeat lines")
        #expect(text.split(separator: "\n").count < 140)
    }

    /// Documented commands never rewrite a committed file with different bytes: reports and GPX
    /// go to the current folder or a path outside Reports/ and Samples/; the only documented
    /// writers there are the byte-identical regenerations (`.ci/reports`, `simulate --all -o
    /// Samples/`, which ReportSamplesTests and SimulateTests check).
    @Test func documentedCommandsNeverRewriteCommittedFiles() throws {
        let root = ReportE2E.packageRoot
        var commands: [String] = []
        for doc in ["README.md", "Samples/README.md", "Reports/README.md"] {
            let text = try String(contentsOfFile: root + "/" + doc, encoding: .utf8)
            commands += text.split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix("    ") && $0.contains("bgeo-forensics ") && !$0.contains("which runs") }
        }
        #expect(commands.count > 20)
        for line in commands {
            let words = line.split(whereSeparator: { $0 == " " }).map(String.init)
            for (i, word) in words.enumerated() where ["-o", "--output", "--export-quarantine", "--work"].contains(word) && i + 1 < words.count {
                let target = words[i + 1]
                let committed = target.hasPrefix("Reports") || target.hasPrefix("Samples")
                let regeneration = line.contains("simulate --all -o Samples/")
                #expect(!committed || regeneration, "README command writes into a committed folder: \(line)")
            }
        }
    }

    /// The documents a clone ships link only to files the clone has (no machine-specific paths).
    @Test func documentationLinksResolveInAClone() throws {
        let root = ReportE2E.packageRoot
        for doc in ["README.md", "Samples/README.md", "Reports/README.md"] {
            let text = try String(contentsOfFile: root + "/" + doc, encoding: .utf8)
            #expect(!text.contains("/work/"), "\(doc) names a path outside the clone")
            let folder = URL(fileURLWithPath: root + "/" + doc).deletingLastPathComponent()
            for match in text.matches(of: /\]\(([^)#]+)\)/) {
                let target = String(match.output.1)
                guard !target.hasPrefix("http") else { continue }
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(target).path), "\(doc) links to missing \(target)")
            }
        }
    }

    /// `.ci/run` keeps failures whole and drops the per-test "started"/"passed" lines.
    @Test func ciFilterKeepsFailuresAndDropsRoutine() throws {
        let folder = TestDirectory("ci-filter")
        let sample = """
            [0/1] Planning build
            ◇ Test run started.
            ↳ Testing Library Version: 6.3.1
            ◇ Suite A started.
            ◇ Test ok() started.
            ✔ Test ok() passed after 0.001 seconds.
            ◇ Test case passing 1 argument content → "two
            " to multiLine(_:) started.
            ✔ Test case passing 1 argument content → "two
            " to multiLine(_:) passed after 0.001 seconds.
            ◇ Test bad() started.
            ✘ Test bad() recorded an issue at A.swift:3:5: Expectation failed: 1 == 2
            ↳ the reason
            ✘ Test bad() failed after 0.002 seconds with 1 issue.
            ✘ Suite A failed after 0.003 seconds with 1 issue.
            ✘ Test run with 2 tests in 1 suite failed after 0.004 seconds with 1 issue.

            """
        try sample.write(toFile: folder.file("in.txt"), atomically: true, encoding: .utf8)
        let result = try ReportE2E.run("/bin/bash", ["-c", "'\(ReportE2E.packageRoot)/.ci/test-filter' < '\(folder.file("in.txt"))'"])
        #expect(result.exitCode == 0)
        #expect(!result.stdout.contains("started") && !result.stdout.contains("passed after") && !result.stdout.contains("Planning"))
        #expect(!result.stdout.contains("multiLine"), "a test-case name spanning lines leaked: \(result.stdout)")
        for kept in ["Expectation failed: 1 == 2", "↳ the reason", "✘ Test bad() failed", "✘ Test run with 2 tests"] {
            #expect(result.stdout.contains(kept), "\(kept) missing from: \(result.stdout)")
        }
        let ci = try String(contentsOfFile: ReportE2E.packageRoot + "/.ci/run", encoding: .utf8)
        #expect(ci.contains("--disable-xctest") && ci.contains("PASS: ") && ci.contains("FAIL: "))
    }
}
