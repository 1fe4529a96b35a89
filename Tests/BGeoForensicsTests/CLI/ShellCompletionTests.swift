import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The completion scripts offer every command and option of the specs, parse in their shell, and
/// (bash and fish, whose completions can be asked for without a terminal) complete what they should.
@Suite struct ShellCompletionTests {
    /// zsh and fish are installed by .ci/run: on CI a missing one fails instead of skipping.
    static func judge(_ name: String) -> Bool {
        ReportFixture.tool(name) != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static func script(_ shell: ShellCompletion.Shell) -> String {
        ShellCompletion(shell: shell, commands: CLISpecFixture.all, tool: "bgeo-forensics").script()
    }

    /// Runs `shell` on a script file in a folder holding a file `a.db` and a folder `adir`.
    static func run(_ shell: String, _ arguments: [String], script: String) throws -> (status: Int32, output: String, folder: TestDirectory) {
        let folder = TestDirectory("completion")
        try script.write(toFile: folder.file("script"), atomically: true, encoding: .utf8)
        try Data().write(to: URL(fileURLWithPath: folder.file("a.db")))
        try FileManager.default.createDirectory(atPath: folder.file("adir"), withIntermediateDirectories: false)
        let process = Process()
        let path = try #require(ReportFixture.tool(shell), "\(shell) is not installed (.ci/run installs it)")
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), folder)
    }

    @Test(arguments: ShellCompletion.Shell.allCases)
    func everyCommandAndOptionIsOffered(shell: ShellCompletion.Shell) {
        let text = Self.script(shell)
        for command in CLISpecFixture.all {
            #expect(text.contains(command.name), "\(shell): \(command.name)")
            for option in command.options {
                // fish names options without their dashes (-l since, -s o).
                let name = shell == .fish ? "-l '\(option.name.dropFirst(2))'" : option.name
                #expect(text.contains(name), "\(shell): \(command.name) \(option.name)")
                if let short = option.short {
                    #expect(text.contains(shell == .fish ? "-s '\(short.dropFirst())'" : short), "\(shell): \(short)")
                }
            }
        }
    }

    @Test(.enabled(if: judge("bash"), "bash is not installed"))
    func bashParsesItAndCompletes() throws {
        #expect(try Self.run("bash", ["-n", "script"], script: Self.script(.bash)).status == 0)
        // COMPREPLY for the words typed so far; the last word is the one being completed.
        func complete(_ words: [String]) throws -> [String] {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            let body = "source ./script; COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _bgeo_forensics; printf '%s\\n' \"${COMPREPLY[@]}\""
            let result = try Self.run("bash", ["-c", body], script: Self.script(.bash))
            #expect(result.status == 0, "\(result.output)")
            return result.output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        #expect(try complete(["bgeo-forensics", "ti"]) == ["timeline"])
        #expect(try Set(complete(["bgeo-forensics", ""])) == ["timeline", "fleet", "simulate", "help", "--help", "-h", "--version"])
        #expect(try complete(["bgeo-forensics", "help", "fl"]) == ["fleet"])
        #expect(try complete(["bgeo-forensics", "timeline", "--s"]) == ["--since", "--set"])
        #expect(try Set(complete(["bgeo-forensics", "fleet", "-"])) == ["--jobs", "-j", "--json", "--color", "--help", "-h"])
        #expect(try Set(complete(["bgeo-forensics", "timeline", "a"])) == ["a.db", "adir"], "DUMP: files")
        #expect(try complete(["bgeo-forensics", "timeline", "-o", "a"]).contains("a.db"), "FILE: files")
        #expect(try complete(["bgeo-forensics", "timeline", "--work", "a"]) == ["adir"], "DIR: folders only")
        #expect(try complete(["bgeo-forensics", "timeline", "--since", "a"]).isEmpty, "TIME: nothing to guess")
        #expect(try complete(["bgeo-forensics", "simulate", "a"]).isEmpty, "no positional, no files")
    }

    @Test(.enabled(if: judge("zsh"), "zsh is not installed: apt-get install zsh"))
    func zshParsesIt() throws {
        let result = try Self.run("zsh", ["-n", "script"], script: Self.script(.zsh))
        #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
        let text = Self.script(.zsh)
        #expect(text.hasPrefix("#compdef bgeo-forensics\n"), "compinit finds the file by its first line")
        #expect(text.contains("'(-o --output)--output=[Output file ('\\''-'\\'' for standard output).]:FILE:_files'"))
        #expect(text.contains("'--work=[Working folder (default ./<sha>.resync).]:DIR:_files -/'"))
        #expect(text.contains("'--all-gaps[List every gap \\[default: one line\\].]'"), "brackets escaped inside the explanation")
        #expect(text.contains("'*--set=[Override a key, e.g. a\\\\b=$x.]:KEY=VALUE: '"), "repeatable; no completion for a free word")
        #expect(text.contains("'*:PATH:_files'"), "fleet's variadic PATH")
        #expect(text.contains("'fleet:It'\\''s a fleet: one row per dump.'"), "a quote closes, escapes and reopens")
    }

    @Test(.enabled(if: judge("fish"), "fish is not installed: apt-get install fish"))
    func fishParsesItAndCompletes() throws {
        let syntax = try Self.run("fish", ["--no-execute", "script"], script: Self.script(.fish))
        #expect(syntax.status == 0 && syntax.output.isEmpty, "\(syntax.output)")
        // `complete -C` prints what fish would offer, a candidate and its description per line.
        func complete(_ line: String) throws -> [String] {
            let result = try Self.run("fish", ["--no-config", "-c", "source ./script; complete -C '\(line)'"], script: Self.script(.fish))
            #expect(result.status == 0, "\(result.output)")
            return result.output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try complete("bgeo-forensics ti") == ["timeline"])
        #expect(try Set(complete("bgeo-forensics timeline --s")) == ["--since", "--set"])
        #expect(try Set(complete("bgeo-forensics timeline a")) == ["a.db", "adir/"], "DUMP: files")
        #expect(try complete("bgeo-forensics timeline --work a") == ["adir/"], "DIR: folders only")
        #expect(try complete("bgeo-forensics simulate a").isEmpty, "no positional, no files")
        let described = try Self.run("fish", ["--no-config", "-c", "source ./script; complete -C 'bgeo-forensics fl'"], script: Self.script(.fish))
        #expect(described.output.contains("It's a fleet: one row per dump."), "\(described.output)")
    }
}
