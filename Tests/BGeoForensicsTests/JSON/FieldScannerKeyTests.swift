import Testing
@testable import BGeoReader

/// The scanner compares a key with a wanted name eight bytes at a time (the first and last eight
/// overlapping below sixteen, the bytes one by one below eight, `memcmp` above sixteen): a key
/// that differs from a name in any one byte, at any length, is not that name, and every name is
/// found among near misses of all the others.
@Suite struct FieldScannerKeyTests {
    /// Names of every length from 1 to 40, each with a twin of its length that differs in one
    /// byte only (so a comparison that skipped a byte would confuse them).
    private static let names: [String] = (1...40).flatMap { length -> [String] in
        let name = String((0..<length).map { Character(UnicodeScalar(UInt8(97 + ($0 * 7 + length) % 26))) })
        var twin = Array(name.utf8)
        twin[length / 2] ^= 0x01
        return [name, String(decoding: twin, as: UTF8.self)]
    }

    @Test func everyNameIsFoundAndNoNearMissIsTakenForIt() throws {
        let scanner = FieldScanner(paths: Self.names)
        // Each name's value is its index; before it, every one-byte variant of it (at each
        // position) that is no name holds -1, so a wrong match shows as -1 or another index.
        var members: [String] = []
        for (index, name) in Self.names.enumerated() {
            let bytes = Array(name.utf8)
            for position in bytes.indices {
                var variant = bytes
                variant[position] = variant[position] == UInt8(ascii: "z") ? UInt8(ascii: "y") : variant[position] + 1
                let text = String(decoding: variant, as: UTF8.self)
                if !Self.names.contains(text) { members.append("\"\(text)\":-1") }
            }
            members.append("\"\(name)\":\(index)")
        }
        let values = try #require(scanner.scan("{" + members.joined(separator: ",") + "}"))
        for (index, name) in Self.names.enumerated() {
            #expect(values[index] == .number(Double(index)), "\(name)")
        }
        #expect(members.count > 1_500)
    }

    @Test func aKeyLongerOrShorterThanTheNameIsNotIt() throws {
        let scanner = FieldScanner(paths: ["timestamp", "uuid", "raw_latitude_of_the_fix"])
        let text = #"{"timestamp_":1,"timestam":2,"uuid ":3,"uui":4,"raw_latitude_of_the_fi":5,"raw_latitude_of_the_fix_":6,"":7}"#
        let values = try #require(scanner.scan(text))
        #expect(values == [.missing, .missing, .missing])
    }

    /// Regression (stop 51): the scanner read a repeated name's last value and compared an
    /// escaped name by its raw bytes, where the parser's tree — which every other path reads —
    /// takes the first value and decodes the name: an upload row saying `"status":500,
    /// "status":200` was a failure to the timeline's fast path and a success to the tree.
    @Test func aRepeatedNameReadsItsFirstValueAndAnEscapedNameIsItsDecodedText() throws {
        let scanner = FieldScanner(paths: ["status", "coords.latitude", "coords.speed", "uuid"])
        let cases: [(String, [ScannedValue])] = [
            (#"{"status":500,"status":200}"#, [.number(500), .missing, .missing, .missing]),
            (#"{"st\u0061tus":401,"status":200}"#, [.number(401), .missing, .missing, .missing]),
            (#"{"status":null,"st\u0061tus":1}"#, [.null, .missing, .missing, .missing]),
            (#"{"coords":{"latitude":1,"latitude":2},"coords":{"latitude":3,"speed":4}}"#, [.missing, .number(1), .missing, .missing]),
            (#"{"coords":5,"coords":{"latitude":3}}"#, [.missing, .missing, .missing, .missing]),
            (#"{"c\u006f\u006frds":{"l\u0061titude":7},"\u0075uid":"a","uuid":"b"}"#, [.missing, .number(7), .missing, .string("a")]),
            (#"{"st\u0061tu":1,"statuss":2,"\u0073tatus\u0000":3}"#, [.missing, .missing, .missing, .missing]),
        ]
        for (text, expected) in cases {
            let values = try #require(scanner.scan(text), "\(text)")
            #expect(values == expected, "\(text)")
            let tree = try JSONParser.parse(text)
            #expect(scanner.paths.map { FieldScannerDifferentialTests.expected(tree, $0) } == expected, "tree: \(text)")
        }
        // A name that does not decode (an unpaired surrogate) is no wanted name; the grammar allows it.
        #expect(scanner.scan(#"{"\ud800":1,"uuid":"u"}"#) == [.missing, .missing, .missing, .string("u")])
    }
}
