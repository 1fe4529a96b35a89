import Testing
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
