import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The man page is the specs in roff: every command and option on it, every special character
/// escaped, and groff (what `man` runs) reads it without a warning.
@Suite struct ManPageTests {
    let roff = ManPage(commands: CLISpecFixture.all, tool: "bgeo-forensics", version: "9.8.7", summary: "read dumps.").roff()
    var lines: [Substring] { roff.split(separator: "\n", omittingEmptySubsequences: false) }

    @Test func everyCommandOptionAndArgumentIsOnThePage() {
        for command in CLISpecFixture.all {
            #expect(roff.contains("\\fBbgeo\\-forensics \(ManPage.escaped(command.name))\\fR"), "\(command.name)")
            #expect(roff.contains(ManPage.escaped(command.abstract)), "\(command.name)")
            for option in command.options {
                var term = option.short.map { "\\fB\(ManPage.escaped($0))\\fR, " } ?? ""
                term += "\\fB\(ManPage.escaped(option.name))\\fR"
                if let value = option.valueName { term += " \\fI\(ManPage.escaped(value))\\fR" }
                #expect(lines.contains(Substring(term)), "\(command.name) \(option.name)")
            }
            for positional in command.positionals {
                #expect(lines.contains("\\fI\(positional.name)\\fR"), "\(command.name) \(positional.name)")
            }
        }
        #expect(roff.hasPrefix(".TH \"BGEO\\-FORENSICS\" 1 \"\" \"bgeo\\-forensics 9.8.7\""))
        #expect(lines.contains("bgeo\\-forensics \\- read dumps"))
        #expect(roff.contains("(repeatable)"), "--set is repeatable")
        #expect(roff.contains("[\\fIPATH\\fR\\[u2026]]"), "fleet's optional, variadic PATH")
    }

    @Test func hyphensBackslashesAndLeadingDotsOrQuotesAreEscaped() {
        // Text lines are ours (macros) or escaped text: no bare '-' (a hyphen, not the minus an
        // option needs) and no text line that roff would read as a request.
        let macros: Set<String> = [".TH", ".SH", ".SS", ".PP", ".TP", ".br"]
        for line in lines where !line.isEmpty {
            if line.hasPrefix(".") || line.hasPrefix("'") {
                #expect(macros.contains(String(line.prefix(3))), "a text line read as a request: \(line)")
            }
            let unescapedHyphen = line.indices.contains { i in
                line[i] == "-" && (i == line.startIndex || line[line.index(before: i)] != "\\")
            }
            #expect(!unescapedHyphen, "bare hyphen in: \(line)")
            #expect(line.unicodeScalars.allSatisfy { $0.value < 0x7F }, "not ASCII: \(line)")
        }
        #expect(lines.contains("\\&.starts with a dot"))
        #expect(lines.contains("\\&'starts with a quote"))
        #expect(roff.contains("\\-\\-since and \\-\\-all\\-gaps"))
        #expect(roff.contains("C:\\epath"), "a backslash is \\e")
        #expect(roff.contains("history \\[u2014] and"), "non-ASCII as \\[uXXXX]")
        #expect(lines.contains { $0.hasPrefix("A second paragraph") }, "indentation dropped: it would break the paragraph")
        #expect(ManPage.escaped("a\tb\nc\u{07}d") == "a b cd")
    }

    @Test(.enabled(if: ShellCompletionTests.judge("groff"), "groff is not installed: apt-get install groff-base"))
    func groffRendersItWithoutWarnings() throws {
        let groff = try #require(ReportFixture.tool("groff"), "groff is not installed (.ci/run installs it)")
        let folder = TestDirectory("manpage")
        let page = folder.file("bgeo-forensics.1")
        try roff.write(toFile: page, atomically: true, encoding: .utf8)
        let lint = try ReportFixture.run(groff, ["-man", "-Tutf8", "-ww", "-z", page])
        #expect(lint.status == 0 && lint.output.isEmpty, "\(lint.output)")
        let shown = try ReportFixture.run(groff, ["-man", "-Tutf8", "-P-cbou", page]).output
        for text in ["bgeo-forensics timeline DUMP [options]", "Reconstruct history — and diagnose it.", ".starts with a dot",
                     "'starts", "-o, --output FILE", "C:\\path", "[PATH…]"] {
            #expect(shown.contains(text), "\(text) not in:\n\(shown)")
        }
    }
}
