import Foundation
import Testing
import BGeoSQLite
@testable import BGeoReader
@testable import BGeoSimulation

/// `logs --grep` decides most rows on their cells' bytes (`LogGrep.verdict`). Wherever the bytes
/// decide, they must say what the definition (`LogGrep.matches`: lower-cased `String`s, as
/// Foundation's `contains` compares them) says; and a read with a grep must list exactly the rows, and make exactly the
/// warnings, of a read of every row filtered by the definition.
@Suite struct LogGrepTests {
    static let pieces = ["a", "B", "cafe", "e\u{301}", "\u{212A}", "K", "İ", "\r\n", "\n", "\r", " ", "\u{1}", "x=1",
                         "\u{600}", "Token", "\"", "é", "日本", "\u{0}", "z"]

    static let asciiPieces = ["a", "B", "cafe", "K", " ", "x=1", "Token", "\"", "z", "tok"]

    static func randomText(_ rng: inout SplitMix64, ascii: Bool = false) -> String {
        let from = ascii ? asciiPieces : pieces
        return (0..<rng.int(0...6)).map { _ in from[rng.int(0...(from.count - 1))] }.joined()
    }

    @Test(arguments: [1, 2, 3])
    func theBytesSayWhatTheDefinitionSays(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var decided = 0
        for _ in 0..<20_000 {
            // Half the rows are ASCII, as most rows of a log are.
            let ascii = rng.int(0...1) == 0
            let grep = LogGrep(Self.randomText(&rng, ascii: ascii))
            let message: String? = rng.int(0...4) == 0 ? nil : Self.randomText(&rng, ascii: ascii)
            let data: String? = rng.int(0...4) == 0 ? nil : Self.randomText(&rng, ascii: ascii)
            let expected = grep.matches(message: message, data: data)
            var m = message, d = data
            let verdict = Self.withBytes(&m) { mb in Self.withBytes(&d) { grep.verdict(message: mb, data: $0) } }
            if let verdict {
                decided += 1
                #expect(verdict == expected, "needle \(grep.needle.debugDescription) in \(message.debugDescription) / \(data.debugDescription)")
            }
        }
        #expect(decided > 5_000, "the bytes decide most cases (\(decided))")
    }

    /// Cases the bytes must leave to the definition, or decide as it does.
    @Test func charactersThatJoinOrChangeAreLeftToTheDefinition() {
        func verdict(_ needle: String, _ text: String) -> Bool? {
            var t: String? = text
            return Self.withBytes(&t) { LogGrep(needle).verdict(message: nil, data: $0) }
        }
        #expect(LogGrep("cafe").matches(message: nil, data: "cafe\u{301}") == false)
        #expect(verdict("cafe", "cafe\u{301}") == nil, "e + U+0301 is one character")
        #expect(LogGrep("k").matches(message: nil, data: "\u{212A}") == true)
        #expect(verdict("k", "\u{212A}") == nil, "the Kelvin sign lower-cases to k")
        #expect(verdict("TOKEN", "a token here") == true)
        #expect(verdict("token", "no such word") == false)
        #expect(verdict("\n", "a\r\nb") == nil, "a needle with a line end is left to the definition")
        // Regression: Foundation's `contains` trapped on a needle ending in a NUL matched at the
        // end after a character outside ASCII; such a needle is now looked for byte by byte.
        #expect(LogGrep("a\u{0}").matches(message: nil, data: "éa") == false)
        #expect(LogGrep("a\u{0}").matches(message: nil, data: "éa\u{0}") == true)
        #expect(verdict("a", "é a") == true, "a match with ASCII on both sides")
    }

    static func withBytes<R>(_ text: inout String?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard var value = text else { return body(nil) }
        return value.withUTF8 { body($0) }
    }

    /// On a real file: the rows and warnings of a grep read, against every row filtered by the
    /// definition (the read before the byte test).
    @Test func aGrepReadListsWhatTheDefinitionKeeps() throws {
        let dir = TestDirectory("log-grep")
        let path = dir.file("bgeo.db")
        var rng = SplitMix64(seed: 2026_12_07)
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        for i in 0..<3_000 {
            let data: String? = switch rng.int(0...5) {
            case 0: nil
            case 1: "not json " + Self.randomText(&rng)
            default: JSONValue.object(JSONObject([("t", .string(Self.randomText(&rng))), ("n", .int(Int64(i)))])).jsonText
            }
            _ = try w.insertLog(ts: Timestamp.format(1_784_880_000 + Double(i)), level: 3, event: "app",
                                message: rng.int(0...2) == 0 ? nil : Self.randomText(&rng), data: data)
        }
        try w.commit()
        try w.close()
        for needle in ["cafe", "k", "TOKEN", "x=1", "é", "a b", "\n", "z", "e"] {
            let grepped = try Dump(path: path)
            var rows: [Int64] = []
            grepped.forEachLogEntry(LogQuery(grep: needle)) { rows.append($0.rowId) }
            let all = try Dump(path: path)
            let definition = LogGrep(needle)
            var expected: [Int64] = []
            all.forEachLogEntry(LogQuery()) { entry in
                if definition.matches(message: entry.message, data: entry.dataText) { expected.append(entry.rowId) }
            }
            #expect(rows == expected, "\(needle.debugDescription)")
            #expect(grepped.warnings.all == all.warnings.all, "\(needle.debugDescription)")
        }
    }
}
