import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Regression (stop 52): CSV quoting searched the `String` by characters, and a comma or quote
/// followed by a combining mark (U+0301) is one character that is neither. `logs --format csv`
/// wrote `left,́right` unquoted — a row of nine columns — and `say "́hi"` with its quote not
/// doubled, which a reader took for `say ́hi""`; `=́cmd…` went without the formula guard. A real
/// reader is the judge: Python's `csv` module reads every row back with its eight (twelve) cells,
/// each the text the JSON listing gives.
@Suite struct CSVCombiningMarkTests {
    static let messages = ["left,\u{301}right", "say \"\u{301}hi\" x", "=\u{301}cmd|' /C calc'!A0", "cr\r\u{301}lf\n\u{301}end"]
    static let uuid = "u,\u{301}\"\u{301}1"

    static func dump(_ dir: TestDirectory) throws -> String {
        try Hostile.dump(at: dir.file("bgeo.db"), records: 1) { w in
            try w.insertRecord(Hostile.record(1, uuid: CSVCombiningMarkTests.uuid))
            for message in CSVCombiningMarkTests.messages {
                try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, src: "js", event: "app", message: message, data: nil as JSONValue?)
            }
        }
    }

    /// Rows as Python's `csv` module reads `text` (one JSON array per row).
    static func readByPython(_ text: String, dir: TestDirectory) throws -> [[String]] {
        let input = dir.file("listing.csv")
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        let script = "import csv, json, sys\nfor row in csv.reader(open(sys.argv[1], newline='', encoding='utf-8')): print(json.dumps(row))"
        let python = try ReportE2E.run("/usr/bin/python3", ["-c", script, input])
        #expect(python.exitCode == 0, "\(python.stderr)")
        return try python.stdout.split(separator: "\n").map { line in
            try JSONParser.parse(String(line)).arrayValue?.compactMap(\.stringValue) ?? []
        }
    }

    @Test func aCommaOrQuoteBeforeACombiningMarkIsQuotedForACSVReader() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            Issue.record("python3 is needed as the CSV reader")
            return
        }
        let dir = TestDirectory("csv-combining")
        let dump = try CSVCombiningMarkTests.dump(dir)
        let logs = try Hostile.run(["logs", dump, "--limit", "0", "--format", "csv", "--show-secrets"])
        #expect(logs.exitCode == 0, "\(logs.stderr)")
        let rows = try CSVCombiningMarkTests.readByPython(logs.stdout, dir: dir)
        #expect(rows.count == 1 + CSVCombiningMarkTests.messages.count)
        #expect(rows.allSatisfy { $0.count == LogListing.columns.count }, "\(rows)")
        let shown = rows.dropFirst().map { $0[5] }
        #expect(shown.contains("left,\u{301}right") && shown.contains("say \"\u{301}hi\" x"), "\(shown)")
        #expect(shown.contains("'=\u{301}cmd|' /C calc'!A0"), "a formula's first byte is guarded: \(shown)")
        #expect(shown.contains("cr\r\u{301}lf\n\u{301}end"), "\(shown)")

        let locations = try Hostile.run(["locations", dump, "--format", "csv"])
        #expect(locations.exitCode == 0, "\(locations.stderr)")
        let records = try CSVCombiningMarkTests.readByPython(locations.stdout, dir: dir)
        #expect(records.count == 3 && records.allSatisfy { $0.count == LocationListing.columns.count }, "\(records)")
        #expect(records.contains { $0[1] == CSVCombiningMarkTests.uuid }, "\(records)")
    }
}
