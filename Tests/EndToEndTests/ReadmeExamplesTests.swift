import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Every example command in the README files runs as written (issue 26): a reader who copies a
/// line from a clone's root, with the tool on PATH, gets the exit code the README promises.
///
/// The examples are read from a fresh `git clone` of this repository (so what is tested is the
/// committed README, and what the examples write is checked against the committed .gitignore),
/// then run one by one, in document order (a later example may read what an earlier one wrote),
/// through `bash -c` with `set -o pipefail` and the built tool first on PATH.
///
/// Conventions the README states at the start of "Commands":
/// - `DUMP` is a dump's path: here `Samples/healthy-day.db` (a BGeo dump with records still queued,
///   log rows not yet uploaded, a JWT and a recorded refresh URL on the customer's origin: the
///   common case a `resync` example must cope with).
/// - `URL` is the base URL of the reader's ingest server: here a ResyncIngestServer on 127.0.0.1,
///   which answers 2xx except 422 for one queued record (so the quarantine examples list something).
/// - `<UUID>` is a record's uuid: here the first queued record of the dump named on that line.
/// - A comment starting with `# exit N` states the line's exit code; every other line must exit 0.
/// - A file an example reads (`whatif.json`, `overrides.json`) is shown in the README right after
///   `<!-- example-file: NAME -->` as a fenced block; the test writes it from there.
@Suite struct ReadmeExamplesTests {
    static let documents = ["README.md", "Samples/README.md", "Reports/README.md"]

    /// What `DUMP` becomes (see the suite's comment for why this sample).
    static let dumpStandIn = "Samples/healthy-day.db"

    struct Example: CustomStringConvertible {
        let document: String
        let line: Int
        /// The command, continuation lines (` \`) joined, comment included (bash ignores it).
        let text: String

        var description: String { "\(document):\(line): \(text)" }

        /// The text after the first ` # ` (the comment), or "".
        var comment: String {
            guard let range = text.range(of: " # ") else { return "" }
            return String(text[range.upperBound...]).trimmingCharacters(in: .whitespaces)
        }

        /// The exit code the README states (`# exit N …`), else 0.
        var expectedExit: Int32 {
            guard let match = comment.firstMatch(of: /^exit (\d+)\b/) else { return 0 }
            return Int32(match.output.1) ?? -1
        }
    }

    /// Markdown's indented code blocks (4 spaces, after a blank line or another code line, outside
    /// ``` fences) — the form every README example takes; a line ending in ` \` continues on the next.
    static func examples(in text: String, document: String) -> [Example] {
        var found: [Example] = []
        var inFence = false
        var previousBlankOrCode = true
        var pending: (line: Int, text: String)?
        for (index, raw) in text.components(separatedBy: "\n").enumerated() {
            if raw.hasPrefix("```") { inFence.toggle(); previousBlankOrCode = false; continue }
            if inFence { continue }
            if let open = pending {
                let joined = open.text + " " + raw.trimmingCharacters(in: .whitespaces)
                if joined.hasSuffix(" \\") {
                    pending = (open.line, String(joined.dropLast(2)))
                } else {
                    found.append(Example(document: document, line: open.line, text: joined))
                    pending = nil
                }
                continue
            }
            if raw.hasPrefix("    ") && previousBlankOrCode && !raw.trimmingCharacters(in: .whitespaces).isEmpty {
                let command = raw.trimmingCharacters(in: .whitespaces)
                if command.hasSuffix(" \\") {
                    pending = (index + 1, String(command.dropLast(2)))
                } else {
                    found.append(Example(document: document, line: index + 1, text: command))
                }
                previousBlankOrCode = true
            } else {
                previousBlankOrCode = raw.trimmingCharacters(in: .whitespaces).isEmpty
            }
        }
        return found
    }

    /// `<!-- example-file: NAME -->` followed by a fenced block: the files examples read.
    static func exampleFiles(in text: String) -> [(name: String, content: String)] {
        text.matches(of: /<!-- example-file: ([^ ]+) -->\n```[a-z]*\n((?:.*\n)*?)```/).map {
            (String($0.output.1), String($0.output.2))
        }
    }

    /// Examples that cannot run honestly in a test, each with why. Every rule must still match a
    /// README line (a rule no line needs any more is removed, not kept as a blind spot).
    static let skipRules: [(reason: String, matches: @Sendable (String) -> Bool)] = [
        ("builds the package (minutes); this suite runs the tool `swift build --build-tests` built",
         { $0.hasPrefix("swift build") || $0.hasPrefix("swift run") }),
        ("installs into /usr/local/bin: changes the machine and needs root",
         { $0.hasPrefix("install ") }),
        ("changes the reader's shell; the test puts the built tool first on PATH itself",
         { $0.hasPrefix("export PATH=") }),
        ("builds a release .deb (minutes) and installs it system-wide with sudo apt; .ci/run runs .ci/package-test instead",
         { $0.contains(".ci/package") || $0.contains("sudo ") }),
        ("the whole test suite, which runs this test",
         { $0.hasPrefix("bash .ci/run") }),
        ("regenerates Reports/ with headless Chromium (minutes); ReportSamplesTests checks Reports/ is current",
         { $0.hasPrefix(".ci/reports") }),
        ("benchmarks and fuzz runs on dumps of up to millions of records (minutes to hours; the fuzz line's seed S is the reader's)",
         { $0.contains("bgeo-bench") }),
        ("needs a Spark cluster (spark://head:7077) and dumps on a filesystem its executors share; SparkFleetJobTests runs the job in local[2]",
         { $0.contains("spark-submit --master spark://") }),
        ("writes the 1,000,000-record benchmark dump (about 1 GB, minutes); the --records 20000 line shows --records works",
         { $0.contains("simulate --records 1000000") }),
    ]

    /// Tools examples pipe into. .ci/run installs them all; on a machine without one, its lines are
    /// skipped (the line tests that tool as much as ours, and a missing tool says nothing about ours).
    static let pipedTools = ["jq", "gpsbabel", "man", "parallel"]

    enum Decision {
        case run(String)
        case skip(String)
    }

    /// Never anything but loopback: a line that would send to the dump's recorded endpoints or to
    /// any other host without --dry-run is skipped, whatever the README says.
    static func unsafeTarget(_ command: String) -> String? {
        if command.contains("--dry-run") { return nil }
        if command.contains("--to-recorded-url") { return "would send to the customer's recorded endpoints" }
        for match in command.matches(of: /https?:\/\/([^\/\s:'"]+)/) where match.output.1 != "127.0.0.1" {
            return "would send to \(match.output.1), not 127.0.0.1"
        }
        return nil
    }

    /// One example's command after placeholders, or why it is skipped.
    static func decide(_ example: Example, serverBase: String, uuidOf: (String) throws -> String) rethrows -> Decision {
        if let rule = skipRules.first(where: { $0.matches(example.text) }) { return .skip(rule.reason) }
        var command = example.text
        command = command.replacing(/\bDUMP\b/, with: dumpStandIn)
        command = command.replacing(/\bURL\//) { _ in serverBase + "/" }
        if command.contains("<UUID>") { command = command.replacingOccurrences(of: "<UUID>", with: try uuidOf(dumpNamed(in: command))) }
        if let reason = unsafeTarget(command) { return .skip(reason) }
        for tool in pipedTools where command.contains("| \(tool) ") && ReportE2E.tool(tool) == nil {
            return .skip("\(tool) is not installed here (.ci/run installs it)")
        }
        // Spark examples need pyspark and java: skipped only where they are missing and this is not
        // CI (where `.ci/run` installed them, so a missing one fails the example).
        if command.contains("integrations/spark/"), !SparkFleetJobTests.hasSpark {
            return .skip("pyspark or java is not installed here (.ci/run installs them)")
        }
        return .run(command)
    }

    /// The sample a command reads (what `<UUID>` must be a record of).
    static func dumpNamed(in command: String) -> String {
        command.firstMatch(of: /Samples\/[A-Za-z0-9_-]+\.db/).map { String($0.output) } ?? dumpStandIn
    }

    /// Runs `bash -c` in `folder` with `environment`; stdout and stderr read concurrently.
    static func shell(_ command: String, in folder: String, environment: [String: String]) throws -> ToolResult {
        // A hung example fails (exit 124) instead of hanging the suite.
        try ReportE2E.run("/usr/bin/timeout", ["--kill-after=5", "120", "/bin/bash", "-c", "set -o pipefail\n" + command],
                          in: folder, environment: environment)
    }

    /// The parser itself, on a made-up document: fences, continuations, comments, exit codes.
    @Test func theParserFindsIndentedCommandsOnly() throws {
        let text = """
            Intro

                bgeo-forensics inspect Samples/a.db   # exit 2: why
                bgeo-forensics logs Samples/a.db \\
                    --level warn
            text
                not code: no blank line before it

            ```sh
                bgeo-forensics in-a-fence
            ```
            <!-- example-file: x.json -->
            ```json
            { "a": 1 }
            ```

            """
        let found = Self.examples(in: text, document: "T")
        #expect(found.map(\.text) == ["bgeo-forensics inspect Samples/a.db   # exit 2: why",
                                      "bgeo-forensics logs Samples/a.db --level warn"])
        #expect(found.map(\.line) == [3, 4])
        #expect(found.map(\.expectedExit) == [2, 0])
        #expect(Self.exampleFiles(in: text).map(\.name) == ["x.json"])
        #expect(Self.exampleFiles(in: text).first?.content == "{ \"a\": 1 }\n")
        let uuid: (String) -> String = { _ in "u-1" }
        for unsafe in ["bgeo-forensics resync DUMP --to-recorded-url", "bgeo-forensics resync DUMP --url https://ingest.example/x",
                       "bgeo-forensics resync DUMP --url http://10.0.0.1:80/x"] {
            guard case .skip = Self.decide(Example(document: "T", line: 1, text: unsafe), serverBase: "http://127.0.0.1:9", uuidOf: uuid)
            else { Issue.record("not skipped: \(unsafe)"); continue }
        }
        let dry = Self.decide(Example(document: "T", line: 1, text: "bgeo-forensics resync DUMP --url https://ingest.example/x --dry-run"),
                              serverBase: "http://127.0.0.1:9", uuidOf: uuid)
        guard case .run(let command) = dry else { Issue.record("a dry run was skipped"); return }
        #expect(command.contains("resync Samples/healthy-day.db --url https://ingest.example/x"))
        let placeholders = Self.decide(Example(document: "T", line: 1, text: "bgeo-forensics resync DUMP --url URL/locations --uuid <UUID>"),
                                       serverBase: "http://127.0.0.1:9", uuidOf: uuid)
        guard case .run(let substituted) = placeholders else { Issue.record("skipped"); return }
        #expect(substituted == "bgeo-forensics resync Samples/healthy-day.db --url http://127.0.0.1:9/locations --uuid u-1")
    }

    @Test(.timeLimit(.minutes(5)))
    func everyExampleRunsAsWrittenInAFreshClone() throws {
        let started = Date()
        let folder = TestDirectory("readme-examples")
        let clone = folder.file("clone")
        let cloned = try Self.shell("git clone --quiet '\(ReportE2E.packageRoot)' '\(clone)'", in: folder.path,
                                    environment: ProcessInfo.processInfo.environment)
        try #require(cloned.exitCode == 0, "git clone: \(cloned.stderr)")

        // A home of its own: the completions examples write under ~ into folders a reader's shell
        // setup already has (bash-completion's user folder, a folder in $fpath, fish's).
        let home = folder.file("home")
        for sub in [".local/share/bash-completion/completions", ".zfunc", ".config/fish/completions"] {
            try FileManager.default.createDirectory(atPath: home + "/" + sub, withIntermediateDirectories: true)
        }
        var environment = ProcessInfo.processInfo.environment
        let binaries = URL(fileURLWithPath: ToolRunner.executable).deletingLastPathComponent().path
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["HOME"] = home
        environment["MANPAGER"] = "cat"  // `man -l -` never waits for a pager
        environment["PAGER"] = "cat"

        var queued: [String: String] = [:]
        func firstQueuedUUID(_ dump: String) throws -> String {
            if let known = queued[dump] { return known }
            let listing = try ToolRunner.run(["locations", dump, "--limit", "1", "--json"], currentDirectory: clone)
            let uuid = try #require(try JSONParser.parse(listing.stdout).arrayValue?.first?["record"]?["uuid"]?.stringValue,
                                    "no queued record in \(dump): \(listing.stderr)")
            queued[dump] = uuid
            return uuid
        }
        let poisoned = try firstQueuedUUID(Self.dumpStandIn)
        let server = try ResyncIngestServer(folder, behaviour: ["uuids": [poisoned: ["always": 422]]])
        let serverBase = "http://127.0.0.1:\(server.port)"

        var examples: [Example] = []
        for document in Self.documents {
            let text = try String(contentsOfFile: clone + "/" + document, encoding: .utf8)
            examples += Self.examples(in: text, document: document)
            for file in Self.exampleFiles(in: text) {
                try file.content.write(toFile: clone + "/" + file.name, atomically: true, encoding: .utf8)
            }
        }
        #expect(examples.count > 60, "only \(examples.count) examples found: is the parser still reading the README?")

        var ran: [(Example, Double)] = []
        var skipped: [(Example, String)] = []
        var usedRules = Set<String>()
        var namedPaths = Set<String>()
        for example in examples {
            switch try Self.decide(example, serverBase: serverBase, uuidOf: firstQueuedUUID) {
            case .skip(let reason):
                skipped.append((example, reason))
                usedRules.insert(reason)
            case .run(let command):
                let began = Date()
                let result = try Self.shell(command, in: clone, environment: environment)
                ran.append((example, Date().timeIntervalSince(began)))
                #expect(result.exitCode == example.expectedExit,
                        "\(example)\nran: \(command)\nexit \(result.exitCode), expected \(example.expectedExit)\n\(result.stderr.suffix(1500))")
                if example.text.contains("<UUID>") {
                    #expect(result.stdout.contains(try firstQueuedUUID(Self.dumpNamed(in: command))),
                            "\(example): the substituted uuid found nothing\n\(result.stdout.prefix(500))")
                }
                if example.text.contains("--quarantine") && example.text.contains("--json") && example.text.contains("DUMP") {
                    #expect(result.stdout.contains(poisoned), "\(example): the record the server refused is not in the quarantine\n\(result.stdout)")
                }
                for match in example.text.matches(of: /\bURL(\/[A-Za-z0-9_\/-]*)/) where !example.text.contains("--dry-run") {
                    namedPaths.insert(String(match.output.1))
                }
            }
        }

        for rule in Self.skipRules {
            #expect(usedRules.contains(rule.reason), "no README line needs the skip rule '\(rule.reason)' any more: remove it")
        }
        // The placeholder examples really reached the loopback server: every path they name
        // (except where a 401 would go, which this server never asks for) received a request.
        let seen = Set(server.requests().map(\.path))
        #expect(!namedPaths.isEmpty, "no example names URL/…")
        for path in namedPaths where path != "/refresh" {
            #expect(seen.contains(path), "no example request reached \(path); the server saw \(seen.sorted())")
        }

        let status = try Self.shell("git status --porcelain --untracked-files=all", in: clone, environment: environment)
        #expect(status.exitCode == 0)
        #expect(status.stdout.isEmpty, "README examples changed or left files the clone's .gitignore does not cover:\n\(status.stdout)")

        let seconds = Date().timeIntervalSince(started)
        print("README examples: \(ran.count) run, \(skipped.count) skipped, \(String(format: "%.1f", seconds)) s")
        for (example, reason) in skipped { print("  skipped \(example): \(reason)") }
        for (example, time) in ran.sorted(by: { $0.1 > $1.1 }).prefix(5) { print(String(format: "  %.1f s  ", time) + "\(example)") }
    }
}
