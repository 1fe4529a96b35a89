import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `TextOutput` writes a text larger than its buffer from the text's own bytes, and a CSV row
/// field by field (`dataLine(fields:separator:)`), quoting as it writes: what reaches the file is
/// what the buffered, joined definition writes (`CSVField.written`) — order kept around the large
/// texts, controls shown field by field as in the joined line, quotes doubled in pieces that
/// straddle the buffer.
@Suite struct TextOutputTests {
    static func written(in folder: TestDirectory, _ body: (TextOutput) -> Void) throws -> [UInt8] {
        let path = folder.file("out-\(UUID().uuidString)")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let output = TextOutput(fd: fd)
        body(output)
        output.flush()
        close(fd)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func largeTextsAndFieldRowsKeepTheirPlaceAndForm() throws {
        let folder = TestDirectory("text-output")
        let large = String(repeating: "0123456789abcdef", count: 10_000) + "é\u{1B}[2J\u{202E}"
        let quotedLarge = "\"" + String(repeating: "ab\"\"c,", count: 30_000) + "\u{1B}\""
        let fields = ["1", "a\u{1B}b", large, "", "\u{202E},x", "\u{301}", quotedLarge, "=1+1", "-2.5", "@\"x\u{301}", "\"\u{301},"]
            .map(CSVField.init)
        let got = try TextOutputTests.written(in: folder) { output in
            output.writeData("head,")
            output.writeJSON(large)
            output.dataLine(fields: fields, separator: UInt8(ascii: ","))
            output.dataLine(large)
            output.dataLine(fields: [CSVField("tail")], separator: UInt8(ascii: ","))
        }
        let joined = fields.map(\.written).joined(separator: ",")
        let expected = "head," + large + TerminalText.forDataView(joined) + "\n" + TerminalText.forDataView(large) + "\n" + "tail\n"
        // Compared as sizes and a first difference: the bytes themselves would print megabytes.
        let want = Array(expected.utf8)
        #expect(got.count == want.count)
        #expect(got.indices.first { $0 >= want.count || got[$0] != want[$0] } == nil)
        // Only the JSON text (trusted to be the writer's) keeps its raw ESC; the data lines show theirs.
        #expect(got.filter { $0 == 0x1B }.count == 1)
        // The definition itself: quoted where a reader needs it, formulas guarded, numbers not.
        #expect(CSVField("=1+1").written == "'=1+1")
        #expect(CSVField("-2.5").written == "-2.5")
        #expect(CSVField("@\"x\u{301}").written == "\"'@\"\"x\u{301}\"")
        #expect(CSVField("a\"\u{301},b").written == "\"a\"\"\u{301},b\"")
        #expect(CSVField("plain").written == "plain")
    }
}
