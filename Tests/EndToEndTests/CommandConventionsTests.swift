import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

/// Issue 26, items 3 and 4: one meaning per option across commands, and the conventions a
/// command-line user expects (NO_COLOR, --color, -V / version, suggestions, 80-column help,
/// logs --status).
@Suite struct CommandConventionsTests {
    static let samples = ReportE2E.packageRoot + "/Samples"

    @Test func limitZeroMeansNoLimitInEveryListing() throws {
        let path = Self.samples + "/stranded-refresh.db"
        let locations = try ToolRunner.run(["locations", path, "--limit", "0", "--format", "ndjson"])
        #expect(locations.exitCode == 0)
        #expect(locations.stdout.split(separator: "\n").count == 400, "locations --limit 0 listed \(locations.stdout.split(separator: "\n").count)")
        let logs = try ToolRunner.run(["logs", path, "--limit", "0", "--format", "ndjson"])
        #expect(logs.stdout.split(separator: "\n").count == 1734)
    }

    @Test func everyDurationOptionTakesAUnitAndSaysSoTheSameWay() throws {
        let path = Self.samples + "/stranded-refresh.db"
        for (option, extra) in [("--backoff-initial", ["resync", path, "--dry-run"]), ("--backoff-max", ["resync", path, "--dry-run"]),
                                ("--deadline", ["resync", path, "--dry-run"]), ("--gap", ["timeline", path])] {
            let bare = try ToolRunner.run(extra + [option, "15"])
            #expect(bare.exitCode == 2, "\(option) 15: \(bare.stderr)")
            #expect(bare.stderr.contains("\(option) needs a unit: 15s, 15m or 15h?"), "\(option): \(bare.stderr)")
        }
    }

    @Test func colourFollowsNoColorAndTheColorOption() throws {
        let path = Self.samples + "/stranded-refresh.db"
        // A colour (SGR) sequence; the progress line's own line clearing is not colour.
        func coloured(_ text: String) -> Bool {
            let scalars = Array(text.unicodeScalars)
            for i in scalars.indices where scalars[i] == "\u{1b}" && i + 1 < scalars.count && scalars[i + 1] == "[" {
                var j = i + 2
                while j < scalars.count, ("0"..."9").contains(scalars[j]) || scalars[j] == ";" { j += 1 }
                if j < scalars.count, scalars[j] == "m" { return true }
            }
            return false
        }
        // The test runner itself sets NO_COLOR: each run says what it wants.
        let terminal = try ToolRunner.runOnTerminal(["timeline", path, "--findings-only"], setting: ["-u", "NO_COLOR", "TERM=xterm"])
        #expect(terminal.exitCode == 0 && coloured(terminal.shown), "no colour on a terminal")
        let plain = try ToolRunner.runOnTerminal(["timeline", path, "--findings-only"], setting: ["TERM=xterm", "NO_COLOR=1"])
        #expect(plain.exitCode == 0 && !coloured(plain.shown), "NO_COLOR=1 ignored")
        let empty = try ToolRunner.runOnTerminal(["timeline", path, "--findings-only"], setting: ["TERM=xterm", "NO_COLOR="])
        #expect(!coloured(empty.shown), "NO_COLOR set to any value means no colour")
        let never = try ToolRunner.runOnTerminal(["timeline", path, "--findings-only", "--color", "never"], setting: ["-u", "NO_COLOR", "TERM=xterm"])
        #expect(!coloured(never.shown))
        let always = try ToolRunner.run(["timeline", path, "--findings-only", "--color", "always"])
        #expect(always.exitCode == 0 && coloured(always.stdout), "--color always on a pipe")
        let bad = try ToolRunner.run(["timeline", path, "--color", "sometimes"])
        #expect(bad.exitCode == 2 && bad.stderr.contains("--color"))
    }

    @Test func versionHasItsThreeSpellingsAndMistypesGetASuggestion() throws {
        for word in ["--version", "-V", "version"] {
            let run = try ToolRunner.run([word])
            #expect(run.exitCode == 0 && run.stdout == "\(ToolInfo.name) \(ToolInfo.version)\n", "\(word)")
        }
        let typo = try ToolRunner.run(["--versoin"])
        #expect(typo.exitCode == 2 && typo.stderr.contains("Did you mean '--version'?"), "\(typo.stderr)")
        let command = try ToolRunner.run(["timelin"])
        #expect(command.exitCode == 2 && command.stderr.contains("Did you mean 'timeline'?"))
        let option = try ToolRunner.run(["timeline", Self.samples + "/healthy-day.db", "--findings-onyl"])
        #expect(option.exitCode == 2 && option.stderr.contains("did you mean '--findings-only'?"), "\(option.stderr)")
    }

    @Test func everyHelpFitsEightyColumns() throws {
        let overview = try ToolRunner.run(["--help"])
        let listing = overview.stdout.components(separatedBy: "Commands:").last ?? ""
        let names = listing.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        #expect(names.count >= 12)
        for name in names {
            let help = try ToolRunner.run([name, "--help"])
            #expect(help.exitCode == 0)
            for line in help.stdout.split(separator: "\n") {
                #expect(line.count <= 80, "\(name) --help: \(line.count) columns: \(line)")
            }
            #expect(help.stdout.contains("--color WHEN"), "\(name) lacks --color")
        }
    }

    @Test func logsStatusKeepsOnlyRowsThatStateThatStatus() throws {
        let path = Self.samples + "/stranded-refresh.db"
        let run = try ToolRunner.run(["logs", path, "--limit", "0", "--status", "401", "--format", "ndjson"])
        #expect(run.exitCode == 0)
        let rows = run.stdout.split(separator: "\n").map { try? JSONParser.parse(String($0)) }
        #expect(rows.count > 100)
        for row in rows {
            let data = row?["data"]
            #expect(data?["status"]?.intValue == 401, "\(String(describing: row))")
        }
        let events = Set(rows.compactMap { $0?["event"]?.stringValue })
        #expect(events == ["http.response", "auth.refresh.result"], "\(events)")
        let two = try ToolRunner.run(["logs", path, "--limit", "0", "--status", "401", "--status", "400", "--format", "ndjson"])
        #expect(two.stdout.split(separator: "\n").count > rows.count)
        let bad = try ToolRunner.run(["logs", path, "--status", "abc"])
        #expect(bad.exitCode == 2 && bad.stderr.contains("--status takes an HTTP status code"))
    }

    /// `logs --grep ""` listed no row and said nothing of why (an empty needle is found nowhere by
    /// the search's definition): it is refused in one sentence, exit 2, before the dump is read.
    @Test func anEmptyGrepIsRefused() throws {
        let path = ReportE2E.packageRoot + "/Samples/healthy-day.db"
        let empty = try ToolRunner.run(["logs", path, "--grep", ""])
        #expect(empty.exitCode == 2, "\(empty.stderr)")
        #expect(empty.stderr.contains("--grep needs some text to search for; it was empty") && empty.stdout.isEmpty)
        let some = try ToolRunner.run(["logs", path, "--grep", "401", "--limit", "1"])
        #expect(some.exitCode == 0 && !some.stdout.isEmpty)
    }
}

extension CommandConventionsTests {
    /// `inspect bgeo.db-wal` named the WAL "not an SQLite database"; it now names the database.
    @Test func aCompanionFileNamesTheDatabaseToOpen() throws {
        let wal = Self.samples + "/wal-mode.db-wal"
        let run = try ToolRunner.run(["inspect", wal])
        #expect(run.exitCode == 2)
        #expect(run.stderr.contains("is the write-ahead log of \(Self.samples)/wal-mode.db, not a database itself: open \(Self.samples)/wal-mode.db"),
                "\(run.stderr)")
    }
}

extension CommandConventionsTests {
    /// A missing --config file was "cannot read 'nope.json'" in replay and "nope.json: cannot be
    /// read" in resync; both now say the same sentence, naming the reason.
    @Test func aMissingConfigFileIsNoSuchFileInEveryCommand() throws {
        let path = Self.samples + "/stranded-refresh.db"
        let folder = TestDirectory("config")
        for words in [["replay", path], ["resync", path, "--dry-run"]] {
            let missing = try ToolRunner.run(words + ["--config", "nope.json"])
            #expect(missing.exitCode == 2 && missing.stderr.contains("--config nope.json: no such file"), "\(words[0]): \(missing.stderr)")
            let dir = try ToolRunner.run(words + ["--config", folder.path])
            #expect(dir.exitCode == 2 && dir.stderr.contains("a folder, not a JSON file"), "\(words[0]): \(dir.stderr)")
        }
    }
}

extension CommandConventionsTests {
    /// Issue 26, item 2: `--dry-run` sends nothing, so it refuses nothing: it shows the requests and
    /// says what a real run would refuse, with the flag that fixes it. A real run still refuses.
    @Test func aDryRunShowsWhatARealRunWouldRefuseInsteadOfRefusing() throws {
        let path = Self.samples + "/stranded-refresh.db"
        let work = TestDirectory("dry-run-targets")
        let dry = try ToolRunner.run(["resync", path, "--work", work.file("w"), "--url", "http://127.0.0.1:9/x", "--dry-run", "--requests", "1"])
        #expect(dry.exitCode == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("POST http://127.0.0.1:9/x"))
        #expect(dry.stdout.contains("# a real run would refuse: the dump's authorization.refreshUrl is"), "\(dry.stdout)")
        #expect(dry.stdout.contains("--set authorization.refreshUrl=URL"))
        let noURL = try ToolRunner.run(["resync", path, "--work", work.file("w"), "--dry-run", "--requests", "1"])
        #expect(noURL.exitCode == 0 && noURL.stdout.contains("a real run would refuse: no --url given"), "\(noURL.stdout)")
        #expect(noURL.stdout.contains("--to-recorded-url"))
        let real = try ToolRunner.run(["resync", path, "--work", work.file("w"), "--url", "http://127.0.0.1:9/x"])
        #expect(real.exitCode == 2 && real.stderr.contains("another origin"), "\(real.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("w/work.db")), "a refused run made a working copy")
    }
}

extension CommandConventionsTests {
    /// `fleet nope -o f.ndjson` exited 0 with a not_a_dump row for a path that does not exist; a
    /// path named on the command line is now refused like every command's missing input.
    @Test func fleetRefusesANamedPathThatDoesNotExist() throws {
        let folder = TestDirectory("fleet-missing")
        let run = try ToolRunner.run(["fleet", folder.file("nope"), "-o", folder.file("f.ndjson")])
        #expect(run.exitCode == 2, "\(run.stderr)")
        #expect(run.stderr.contains("nope: no such file or folder; nothing was analysed"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("f.ndjson")))
    }
}

extension CommandConventionsTests {
    /// Issue 26, item 2: after a run, `--dry-run` needed the refresh URL repeated. The working copy
    /// remembers the endpoints a run was given; a later run or dry run on it uses them (and says
    /// so), and whatever the new command line names wins.
    @Test func theWorkingCopyRemembersTheTargetsARunWasGiven() throws {
        let path = Self.samples + "/stranded-refresh.db"
        let dir = TestDirectory("remembered-targets")
        let server = try ResyncIngestServer(dir, behaviour: ["default_status": 503])
        let work = dir.file("w")
        let first = try ToolRunner.run(["resync", path, "--work", work, "--url", server.url("/locs"),
                                        "--set", "authorization.refreshUrl=\(server.url("/auth/refresh"))",
                                        "--max-attempts", "1", "--backoff-initial", "0.01s",
                                        "--set", "authorization.accessToken=tok-resume-secret-9876"])
        #expect(first.exitCode == 3, "\(first.stderr)")
        #expect(!first.stdout.contains("tok-resume-secret-9876") && !first.stderr.contains("tok-resume-secret-9876"))
        #expect(first.stdout.contains("authorization.accessToken=‹redacted"), "\(first.stdout)")
        // The resume line can be pasted: the refresh URL is shown, not mistaken for a credential.
        #expect(first.stdout.contains("--set authorization.refreshUrl=\(server.url("/auth/refresh")) --max-attempts 1"), "\(first.stdout)")
        let sentByFirst = server.requests().count
        #expect(sentByFirst >= 1)

        let dry = try ToolRunner.run(["resync", path, "--work", work, "--dry-run", "--requests", "1"])
        #expect(dry.exitCode == 0, "\(dry.stderr)")
        #expect(!dry.stdout.contains("a real run would refuse"), "\(dry.stdout)")
        #expect(dry.stdout.contains("POST \(server.url("/locs"))"), "\(dry.stdout)")
        #expect(dry.stdout.contains("token refresh: \(server.url("/auth/refresh"))"), "\(dry.stdout)")
        #expect(dry.stderr.contains("remembers from an earlier run: url \(server.url("/locs")), authorization.refreshUrl \(server.url("/auth/refresh"))"),
                "\(dry.stderr)")

        // Named again, a target wins over memory; the rest is still remembered.
        let other = try ToolRunner.run(["resync", path, "--work", work, "--dry-run", "--requests", "1", "--url", "http://127.0.0.1:9/other"])
        #expect(other.exitCode == 0 && other.stdout.contains("POST http://127.0.0.1:9/other"), "\(other.stdout)")
        #expect(!other.stdout.contains("a real run would refuse"), "\(other.stdout)")
        #expect(!other.stderr.contains("url \(server.url("/locs"))"), "\(other.stderr)")

        // A real run with nothing named sends where the first run was told to, and only there.
        let again = try ToolRunner.run(["resync", path, "--work", work, "--max-attempts", "1", "--backoff-initial", "0.01s"])
        #expect(again.exitCode == 3, "\(again.stderr)")
        #expect(server.requests().count > sentByFirst)
        #expect(again.stderr.contains("Sending to \(ResyncTargets.origin(server.url("/locs"))) only"), "\(again.stderr)")
    }
}
