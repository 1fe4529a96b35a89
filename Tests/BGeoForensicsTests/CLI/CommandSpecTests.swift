import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct CommandSpecTests {
    let spec = CommandSpec(name: "demo", abstract: "Demo.", positionals: [PositionalSpec("DUMP", help: "d")],
                           options: [OptionSpec("--limit", value: "N", help: "n"), OptionSpec("--json", help: "j"),
                                     OptionSpec("--set", value: "K=V", repeatable: true, help: "s"),
                                     OptionSpec("--output", short: "-o", value: "PATH", help: "o")])

    @Test func parsesOptionsFlagsAndPositionals() throws {
        let parsed = try spec.parse(["a.db", "--limit", "5", "--json", "--set", "a=1", "--set=b=2", "-o", "out"])
        #expect(parsed.positionals == ["a.db"])
        #expect(try parsed.int("--limit") == 5)
        #expect(parsed.flag("--json"))
        #expect(parsed.all("--set") == ["a=1", "b=2"])
        #expect(parsed.value("--output") == "out")
    }

    @Test(arguments: [["a.db", "--nope"], [], ["a.db", "--limit"], ["a.db", "b.db"], ["a.db", "--json=1"], ["a.db", "--limit", "1", "--limit", "2"]])
    func rejectsBadCommandLines(_ words: [String]) {
        #expect(throws: UsageError.self) { try spec.parse(words) }
    }

    @Test func typedReadsExplainBadValues() throws {
        let parsed = try spec.parse(["a.db", "--limit", "many"])
        #expect(throws: UsageError.self) { try parsed.int("--limit") }
    }

    @Test func helpListsEveryOption() {
        let help = spec.helpText()
        for name in ["--limit N", "--json", "--set K=V", "-o, --output PATH", "--help", "DUMP"] {
            #expect(help.contains(name), "\(name)")
        }
    }
}

/// The new-user rules (issue 15): units on durations, date-only --until, contradictions refused,
/// "did you mean".
@Suite struct CommandSpecUserErrorTests {
    let spec = CommandSpec(name: "demo", abstract: "Demo.", positionals: [PositionalSpec("DUMP", help: "d")],
                           options: [OptionSpec("--gap", value: "DURATION", help: "g"), OptionSpec("--since", value: "TIME", help: "s"),
                                     OptionSpec("--until", value: "TIME", help: "u"), OptionSpec("--json", help: "j"),
                                     OptionSpec("--format", value: "FORMAT", help: "f"), OptionSpec("--findings-only", help: "f")])

    func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch let error as UsageError { return error.message } catch { return "\(error)" }
        return nil
    }

    @Test func aDurationNeedsItsUnit() throws {
        let bare = try spec.parse(["a.db", "--gap", "15"])
        let text = try #require(message { _ = try bare.duration("--gap") })
        #expect(text.contains("15m") && text.contains("15s"), "\(text)")
        #expect(try spec.parse(["a.db", "--gap", "15m"]).duration("--gap") == 900)
        #expect(try spec.parse(["a.db", "--gap", "1h30m"]).duration("--gap") == 5400)
        #expect(try spec.parse(["a.db", "--gap", "0s"]).duration("--gap") == 0)
        // A plain 0 is the same in every unit ("fleet --timeout 0" = none), but still not a positive duration.
        #expect(try spec.parse(["a.db", "--gap", "0"]).duration("--gap") == 0)
        #expect(message { _ = try spec.parse(["a.db", "--gap", "0"]).duration("--gap", positive: true) }?.contains("longer than 0") == true)
        #expect(message { _ = try spec.parse(["a.db", "--gap", "0s"]).duration("--gap", positive: true) }?.contains("longer than 0") == true)
        #expect(message { _ = try spec.parse(["a.db", "--gap", "soon"]).duration("--gap") } != nil)
    }

    @Test func aDateAloneInUntilIsTheEndOfThatDay() throws {
        let parsed = try spec.parse(["a.db", "--since", "2026-07-24", "--until", "2026-07-24"])
        let window = try parsed.timeWindow()
        #expect(window.since == Timestamp.parse("2026-07-24T00:00:00Z"))
        #expect(window.until == Timestamp.parse("2026-07-24T23:59:59.999Z"))
        // A full time is taken as given.
        let exact = try spec.parse(["a.db", "--until", "2026-07-24T12:00:00Z"]).timeWindow()
        #expect(exact.until == Timestamp.parse("2026-07-24T12:00:00Z"))
    }

    @Test func aWindowEndingBeforeItStartsIsRefused() throws {
        let parsed = try spec.parse(["a.db", "--since", "2026-07-25", "--until", "2026-07-24"])
        let text = try #require(message { _ = try parsed.timeWindow() })
        #expect(text.contains("--since 2026-07-25 is later than --until 2026-07-24"))
    }

    @Test func jsonAndAnotherFormatContradict() throws {
        let both = try spec.parse(["a.db", "--json", "--format", "csv"])
        #expect(message { _ = try both.rowFormat() }?.contains("--json and --format csv") == true)
        #expect(try spec.parse(["a.db", "--json", "--format", "json"]).rowFormat() == .json)
        #expect(try spec.parse(["a.db", "--json"]).rowFormat() == .json)
        #expect(try spec.parse(["a.db", "--format", "csv"]).rowFormat() == .csv)
        #expect(try spec.parse(["a.db"]).rowFormat() == .table)
    }

    @Test func aMistypedOptionGetsTheClosestOne() {
        let text = message { _ = try spec.parse(["a.db", "--findings-onyl"]) }
        #expect(text?.contains("did you mean '--findings-only'?") == true, "\(text ?? "")")
        let far = message { _ = try spec.parse(["a.db", "--zzzzzz"]) }
        #expect(far?.contains("did you mean") == false)
        let choice = message { _ = try spec.parse(["a.db", "--format", "cvs"]).rowFormat() }
        #expect(choice?.contains("did you mean 'csv'?") == true, "\(choice ?? "")")
    }

    @Test(arguments: [("timelin", "timeline"), ("replya", "replay"), ("inpsect", "inspect"), ("resyc", "resync"), ("gxp", "gpx")])
    func suggestionFindsTypos(_ typed: String, _ meant: String) {
        let commands = ["inspect", "locations", "logs", "replay", "timeline", "report", "gpx", "resync", "simulate"]
        #expect(Suggestion.closest(to: typed, among: commands) == meant)
    }

    @Test func suggestionStaysQuietForUnrelatedWords() {
        #expect(Suggestion.closest(to: "frobnicate", among: ["inspect", "logs", "replay"]) == nil)
    }
}

/// Unusable output paths become one sentence, found before any work or read from the error.
@Suite struct FileProblemTests {
    @Test func checksNameWhatIsWrong() throws {
        let folder = TestDirectory("file-problem")
        try "x".write(toFile: folder.file("file"), atomically: true, encoding: .utf8)
        func reason(_ path: String, createFolders: Bool = false) -> String? {
            do { try FileProblem.checkWritableFile(path, createFolders: createFolders) } catch { return error.reason }
            return nil
        }
        #expect(reason(folder.path) == "it is a folder; give a file name")
        #expect(reason(folder.path + "/") == "it is a folder; give a file name")
        #expect(reason(folder.file("missing/out.html"))?.contains("does not exist") == true)
        #expect(reason(folder.file("missing/out.html"), createFolders: true) == nil)
        #expect(reason(folder.file("file/out.html"))?.contains("is a file, not a folder") == true)
        #expect(reason(folder.file("file/deeper/out.html"), createFolders: true)?.contains("is a file, not a folder") == true)
        #expect(reason(folder.file("fine.html")) == nil)
        #expect(throws: FileProblem.self) { try FileProblem.checkFolder(folder.file("file")) }
    }

    @Test func foundationErrorsBecomeSentences() throws {
        let folder = TestDirectory("file-problem-errors")
        try "x".write(toFile: folder.file("file"), atomically: true, encoding: .utf8)
        do {
            try FileManager.default.createDirectory(atPath: folder.file("file"), withIntermediateDirectories: true)
            Issue.record("expected an error")
        } catch {
            let problem = try #require(FileProblem.from(error))
            #expect(problem.description.hasSuffix("a file with that name already exists"), "\(problem)")
            #expect(!problem.description.contains("NSCocoaErrorDomain"))
        }
        do {
            try "x".write(toFile: folder.path, atomically: true, encoding: .utf8)
            Issue.record("expected an error")
        } catch {
            let problem = try #require(FileProblem.from(error, path: folder.path))
            #expect(problem.reason.contains("folder"), "\(problem)")
            #expect(!problem.description.contains("Domain"))
        }
        #expect(FileProblem.from(UsageError(message: "x")) == nil)
    }
}
