import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A `logs` table shows 60 characters of a cell, so a long JSON `data` cell is given as the start
/// of its redacted text (`LogListing.dataCell` with `RowWriter.cellStartBytes`): the table written
/// must be byte for byte the one written from the whole cells, whatever the document holds.
@Suite struct TableCellStartTests {
    static func table(_ rows: [[String]]) throws -> [UInt8] {
        let folder = TestDirectory("table-start")
        return try TextOutputTests.written(in: folder) { output in
            let writer = RowWriter(format: .table, columns: ["id", "data"], output: output)
            for row in rows { writer.row(cells: row, jsonText: "") }
            writer.finish()
        }
    }

    @Test func aLongCellsStartIsTabledAsTheWholeCell() throws {
        var redactor = Redactor()
        redactor.learn(secret: "sk_live_4eC39HqLyjWDarjtT1zdp7dc")
        let uuids = (0..<3_000).map { "\"\(String(format: "%08x", $0 * 7919))-0000-4000-8000-000000000000\"" }
        let zalgo = "\"a" + String(repeating: "\u{301}", count: 20_000) + "b\""
        let documents = [
            "{\"uuids\":[" + uuids.joined(separator: ",") + "]}",                        // compact, copied through
            "{\"uuids\": [" + uuids.joined(separator: ", ") + "]}",                      // spaced
            "{\"token\":\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\",\"u\":[" + uuids.joined(separator: ",") + "]}",  // redacted
            "{\"note\":\"caf\u{e9} \\u001b[2J\",\"u\":[" + uuids.joined(separator: ",") + "]}",  // escapes, non-ASCII
            "[" + zalgo + "," + uuids.joined(separator: ",") + "]",                      // one character over 40 KB
            "{\"u\":[" + uuids.joined(separator: ",") + "]",                             // not JSON: shown as text
            "{\"short\":1}",
        ]
        var started = 0
        for document in documents {
            let whole = LogListing.dataCell(document, redactor: redactor, startBytes: nil)
            let start = LogListing.dataCell(document, redactor: redactor, startBytes: 4_096)
            if start != whole { started += 1 }
            #expect(whole.hasPrefix(start) || start == whole, "the start is the whole cell's start")
            let expected = try Self.table([["1", whole], ["2", "x"]])
            let got = try Self.table([["1", start], ["2", "x"]])
            #expect(got == expected, "\(document.prefix(40))")
            #expect(!String(decoding: got, as: UTF8.self).contains("sk_live_4eC39HqLyjWDarjtT1zdp7dc"))
        }
        // The start is taken for the four long documents it can stand for; the combining run and
        // the text that is not JSON are shown whole.
        #expect(started == 4, "\(started)")
    }
}
