import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The escaping pieces every output goes through (TextOutput, RowWriter, warnings, XML writers).
@Suite struct TerminalTextTests {
    @Test func controlsAndBidiAreShownVisibly() {
        #expect(TerminalText.escaped("a\u{1B}[2Jb\u{07}\u{7F}\u{85}\u{202E}\u{2066}\u{200F}\u{061C}\u{2028}") ==
                "a\\u{1b}[2Jb\\u{7}\\u{7f}\\u{85}\\u{202e}\\u{2066}\\u{200f}\\u{61c}\\u{2028}")
        #expect(TerminalText.escaped("Kraków – ✓ 界 😀 é") == "Kraków – ✓ 界 😀 é")
        #expect(TerminalText.escaped("two\nlines") == "two\\u{a}lines")
        #expect(TerminalText.escaped("two\nlines", keepingNewlines: true) == "two\nlines")
    }

    @Test func longFieldsAreShortenedWithTheirLength() {
        let uuid = String(repeating: "x", count: 70_000)
        #expect(TerminalText.field(uuid) == String(repeating: "x", count: 64) + "… (70000 chars)")
        #expect(TerminalText.field("short") == "short")
        let marks = "e" + String(repeating: "\u{301}", count: 5_000)
        #expect(TerminalText.field(marks).hasSuffix("… (5001 chars)"), "combining marks count as what they are")
        let sentence = "uuid \(uuid) also stands in row 4"
        #expect(TerminalText.prose(sentence) == "uuid " + String(repeating: "x", count: 64) + "… (70000 chars) also stands in row 4")
    }

    @Test func textOutputEscapesButKeepsItsOwnLineClearing() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let output = TextOutput(fd: fds[1])
        output.write("row \u{1B}[31mred\u{1B}[0m \u{202E}x")
        output.line()
        output.clearLine()
        output.writeData("csv,\"a\tb\r\nc\",\u{1B}")
        output.flush()
        close(fds[1])
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &bytes, bytes.count)
        close(fds[0])
        let text = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self)
        // Not a terminal: even the tool's colour codes would be shown, so a dump's are.
        #expect(text == "row \\u{1b}[31mred\\u{1b}[0m \\u{202e}x\n\r\u{1B}[2Kcsv,\"a\tb\r\nc\",\\u{1b}")
    }

    @Test func xmlLosesOnlyWhatXMLCannotHold() {
        #expect(XMLText.sanitized("depot\u{1B}\u{0}\u{FFFE}\u{FFFF}\t\n\r<&>\u{85}\u{202E}😀") ==
                "depot\\u{1b}\\u{0}\\u{fffe}\\u{ffff}\t\n\r<&>\u{85}\u{202E}😀")
        #expect(XMLText.sanitized("plain") == "plain")
    }

    @Test func jsonEscapesEveryControlAndReadsBack() throws {
        let value: JSONValue = .string("a\u{1B}\u{7F}\u{85}\u{202E}\u{2028}b")
        let text = JSONWriter().string(value)
        #expect(text == "\"a\\u001b\\u007f\\u0085\\u202e\\u2028b\"")
        #expect(try JSONParser.parse(text) == value)
    }
}

/// The byte-level fast path of `TerminalText.needsEscaping` must agree with `isControl` on every
/// scalar it could meet: a scalar the fast path misses would reach a terminal raw.
@Suite struct TerminalTextFastPathTests {
    @Test func fastPathAgreesWithTheControlSetOnEveryScalarUpToU10000() {
        var disagreements: [String] = []
        for value in UInt32(0)..<0x10000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(scalar), "a" + String(scalar) + "b", "é" + String(scalar)] {
                let slow = text.unicodeScalars.contains { TerminalText.isControl($0.value) }
                if TerminalText.needsEscaping(text, keepingNewlines: false) != slow { disagreements.append(String(value, radix: 16)) }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20))")
    }
}
