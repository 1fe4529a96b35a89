import BGeoForensics
import Foundation
import Testing

/// `completions` and `manpage` on the real binary: every command `--help` lists, and every option
/// each command's `--help` shows, is in the man page and in all three scripts, and each parses.
@Suite struct CompletionsAndManPageTests {
    /// The commands of `--help` with the options of their own `--help` (long names and aliases).
    static let interface: [(command: String, options: [String])] = {
        let overview = (try? ToolRunner.run(["--help"]).stdout) ?? ""
        let names = overview.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Commands:" }.dropFirst()
            .prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
        return names.map { name in
            let help = (try? ToolRunner.run([name, "--help"]).stdout) ?? ""
            let rows = help.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Options:" }.dropFirst()
            // An option's own row starts "  -"; its help's wrapped lines are indented further.
            let options = rows.filter { $0.hasPrefix("  -") }.flatMap { row -> [String] in
                let words = row.split(separator: " ").prefix(3).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
                return words.prefix { $0.hasPrefix("-") }
            }
            return (name, options)
        }
    }()

    @Test func theOverviewListsBothCommands() {
        let names = Self.interface.map(\.command)
        #expect(names.contains("completions") && names.contains("manpage"), "\(names)")
        #expect(names.count >= 12 && Self.interface.allSatisfy { $0.options.contains("--help") }, "\(Self.interface)")
    }

    @Test func theManPageHasEveryCommandAndOption() throws {
        let page = try ToolRunner.run(["manpage"])
        #expect(page.exitCode == 0 && page.stderr.isEmpty, "\(page.stderr)")
        let escaped = { (word: String) in word.replacingOccurrences(of: "-", with: "\\-") }
        #expect(page.stdout.contains(".TH \"BGEO\\-FORENSICS\" 1 \"\" \"bgeo\\-forensics \(ToolInfo.version)\""))
        for (command, options) in Self.interface {
            #expect(page.stdout.contains("\\fBbgeo\\-forensics \(escaped(command))\\fR"), "\(command)")
            for option in options { #expect(page.stdout.contains("\\fB\(escaped(option))\\fR"), "\(command) \(option)") }
        }
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func everyScriptHasEveryCommandAndOption(shell: String) throws {
        let script = try ToolRunner.run(["completions", shell])
        #expect(script.exitCode == 0 && script.stderr.isEmpty, "\(script.stderr)")
        for (command, options) in Self.interface {
            #expect(script.stdout.contains(command), "\(shell): \(command)")
            for option in options {
                let name = shell != "fish" ? option : option.hasPrefix("--") ? "-l '\(option.dropFirst(2))'" : "-s '\(option.dropFirst())'"
                #expect(script.stdout.contains(name), "\(shell): \(command) \(option)")
            }
        }
    }

    /// zsh, fish and groff are installed by .ci/run: on CI a missing one fails instead of skipping.
    static func judge(_ name: String) -> Bool {
        ReportE2E.tool(name) != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    /// Writes what the tool prints for `arguments` to a file and runs `program` with `flags` on it:
    /// it must exit 0 and say nothing.
    static func expectAccepted(_ program: String, _ flags: [String], _ arguments: [String]) throws {
        let folder = TestDirectory("completions")
        let file = folder.file(program)
        try ToolRunner.run(arguments).stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let path = try #require(ReportE2E.tool(program), "\(program) is not installed (.ci/run installs it)")
        let result = try ReportE2E.run(path, flags + [file])
        #expect(result.exitCode == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(program): \(result.stdout)\(result.stderr)")
    }

    @Test(.enabled(if: judge("bash"), "bash is not installed"))
    func bashParsesItsScript() throws { try Self.expectAccepted("bash", ["-n"], ["completions", "bash"]) }

    @Test(.enabled(if: judge("zsh"), "zsh is not installed: apt-get install zsh"))
    func zshParsesItsScript() throws { try Self.expectAccepted("zsh", ["-n"], ["completions", "zsh"]) }

    @Test(.enabled(if: judge("fish"), "fish is not installed: apt-get install fish"))
    func fishParsesItsScript() throws { try Self.expectAccepted("fish", ["--no-execute"], ["completions", "fish"]) }

    @Test(.enabled(if: judge("groff"), "groff is not installed: apt-get install groff-base"))
    func groffReadsThePageWithoutAWarning() throws { try Self.expectAccepted("groff", ["-man", "-Tutf8", "-ww", "-z"], ["manpage"]) }

    @Test func anUnknownShellIsOneSentence() throws {
        let result = try ToolRunner.run(["completions", "fihs"])
        NewUserTests.expectOneSentence(result, mentioning: "SHELL is one of bash, zsh, fish, not 'fihs' (did you mean 'fish'?)")
    }
}
