import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The scanner's String-free results (`FieldScanner.Field`: numbers decoded, strings as byte
/// ranges) against the strict parser on generated and damaged documents, escapes and unpaired
/// surrogates in picked strings included: same verdict, same values once materialised, and the
/// same as the `ScannedValue` API.
@Suite struct FieldScannerFieldTests {
    private static let paths = ["a", "s", "n.x", "n.s", "n"]

    private static func randomString(_ rng: inout SplitMix64) -> String {
        let pieces = ["x", "é", "✓", "😀", "\\\"", "\\\\", "\\n", "\\u00e9", " ", "1234567", "\\/", "\\ud83d\\ude00", "\\ud800",
                      "\\udc00x", "\u{01}"]
        var out = ""
        for _ in 0..<rng.int(0...20) { out += pieces[rng.int(0...(pieces.count - 1))] }
        return "\"" + out + "\""
    }

    private static func randomValue(_ rng: inout SplitMix64, depth: Int) -> String {
        switch rng.int(0...(depth > 1 ? 4 : 6)) {
        case 0, 1: return randomString(&rng)
        case 2, 3: return ["0", "-0", "7", "-12.5", "52.2440006", "1234567890123456789", "1e3", "-2.5E-3", "01", "1.", "-"][rng.int(0...10)]
        case 4: return ["true", "false", "null", "nul", "tru"][rng.int(0...4)]
        case 5: return "[" + (0..<rng.int(0...3)).map { _ in randomValue(&rng, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let keys = ["a", "s", "n", "x", "y", "k\\\"q", "a\\u0062"]
            return "{" + (0..<rng.int(0...4)).map { _ in
                "\"" + keys[rng.int(0...(keys.count - 1))] + "\":" + randomValue(&rng, depth: depth + 1)
            }.joined(separator: ",") + "}"
        }
    }

    @Test func fieldsAgreeWithTheParserAndTheValueAPI() {
        var rng = SplitMix64(seed: 20261201)
        let scanner = FieldScanner(paths: Self.paths)
        var fields: [FieldScanner.Field] = []
        var values: [ScannedValue] = []
        var agreed = 0, refused = 0
        for round in 0..<4000 {
            var text = "{" + (0..<rng.int(0...5)).map { _ in
                // Names repeat and some are escaped (`\u0073` is `s`): the parser's first value decides.
                let key = ["a", "s", "n", "b", "\\u0073", "\\u006e", "n\\u0000"][rng.int(0...6)]
                let repeatedChild = rng.int(0...2) == 0 ? ",\"\\u0078\":\(Self.randomValue(&rng, depth: 2)),\"s\":1" : ""
                let nested = (key == "n" || key == "\\u006e") && rng.int(0...1) == 0
                return "\"" + key + "\":" + (nested
                    ? "{\"x\":\(Self.randomValue(&rng, depth: 1)),\"s\":\(Self.randomString(&rng))\(repeatedChild)}" : Self.randomValue(&rng, depth: 1))
            }.joined(separator: ",") + "}"
            if round % 3 == 2 { text = FieldScannerDifferentialTests.damaged(text, &rng) }
            var copy = text
            let okFields = copy.withUTF8 { scanner.scan($0, into: &fields) }
            let okValues = copy.withUTF8 { scanner.scan($0, into: &values) }
            #expect(okFields == okValues, "\(text)")
            if okFields {
                copy.withUTF8 { bytes in
                    for i in Self.paths.indices { #expect(fields[i].value(in: bytes) == values[i], "\(Self.paths[i]) in \(text)") }
                }
            }
            // Against the parser, repeated and escaped names included.
            guard let tree = try? JSONParser.parse(text), case .object = tree else {
                refused += 1
                continue
            }
            let picked = Self.paths.map { FieldScannerDifferentialTests.expected(tree, $0) }
            #expect(okFields, "\(text)")
            guard okFields else { continue }
            agreed += 1
            copy.withUTF8 { bytes in
                for (i, want) in picked.enumerated() {
                    #expect(fields[i].value(in: bytes) == want, "\(Self.paths[i]) in \(text)")
                    #expect(fields[i].double == want.double && fields[i].bool == want.bool)
                    #expect(fields[i].string(in: bytes) == want.string)
                    let viaBytes = fields[i].withStringBytes(in: bytes) { $0.map { String(decoding: $0, as: UTF8.self) } }
                    #expect(viaBytes == want.string)
                }
            }
        }
        #expect(agreed > 500)
        #expect(refused > 500)
    }

    /// A picked string the parser refuses (an unpaired surrogate) makes the document invalid;
    /// the same string in a field nobody picked is skipped as the grammar allows.
    @Test func unpairedSurrogateInAPickedStringIsRefused() {
        let scanner = FieldScanner(paths: ["s"])
        #expect(scanner.scan(#"{"s":"\ud800"}"#) == nil)
        #expect(scanner.scan(#"{"t":"\ud800","s":"ok"}"#)?.first == .string("ok"))
        var fields: [FieldScanner.Field] = []
        var text = #"{"s":"\ud800"}"#
        #expect(text.withUTF8 { scanner.scan($0, into: &fields) } == false)
        text = #"{"s":"a\u00e9\"b"}"#
        #expect(text.withUTF8 { scanner.scan($0, into: &fields) })
        #expect(fields[0].kind == .escapedString)
        #expect(text.withUTF8 { fields[0].string(in: $0) } == "aé\"b")
    }

    /// A number too large for a Double is refused by the strict parser ("number out of range"):
    /// the byte scans refuse it too, in a wanted field and anywhere else, or a row with one was
    /// JSON to the byte paths and text to the tree paths (stop 54, found by
    /// `TimesketchRowFieldsTests`). A tiny number (zero after rounding) stays accepted by both.
    @Test func aNumberTooLargeForADoubleIsRefusedAsTheParserRefusesIt() {
        let huge = String(repeating: "9", count: 309)
        let cases = ["{\"a\":1e400}", "{\"b\":[1E+309]}", "{\"a\":-1.5e999}", "{\"a\":\(huge)}", "{\"b\":\(huge).5}",
                     "{\"a\":1e-400}", "{\"a\":1.7976931348623157e308}", "{\"a\":\(huge.dropFirst())}", "{\"b\":2e308}"]
        let scanner = FieldScanner(paths: ["a"])
        for text in cases {
            let parsed = (try? JSONParser.parse(text)) != nil
            var copy = text
            let valid = copy.withUTF8 { FieldScanner.isValidJSON($0) }
            var fields: [FieldScanner.Field] = []
            let scanned = copy.withUTF8 { scanner.scan($0, into: &fields) }
            #expect(valid == parsed && scanned == parsed, "\(text.prefix(40)): parser \(parsed), isValidJSON \(valid), scan \(scanned)")
        }
        #expect((try? JSONParser.parse("{\"a\":1e400}")) == nil && (try? JSONParser.parse("{\"a\":1e-400}")) != nil)
    }
}
