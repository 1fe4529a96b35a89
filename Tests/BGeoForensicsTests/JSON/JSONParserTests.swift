import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

@Suite struct JSONParserTests {
    // MARK: Parsing

    @Test func keepsKeyOrderAndNumberKinds() throws {
        let value = try JSONParser.parse(#"{"b":1,"a":2.5,"c":[true,null,"x"],"d":5.0}"#)
        #expect(value.objectValue?.keys == ["b", "a", "c", "d"])
        #expect(value["b"] == .int(1))
        #expect(value["a"] == .double(2.5))
        #expect(value["d"] == .double(5.0))
        #expect(value.jsonText == #"{"b":1,"a":2.5,"c":[true,null,"x"],"d":5.0}"#)
    }

    @Test func decodesEscapesAndSurrogates() throws {
        let value = try JSONParser.parse(#"["a\"b\\c\n\u00e9\ud83d\ude00"]"#)
        #expect(value.arrayValue?.first?.stringValue == "a\"b\\c\né😀")
    }

    @Test(arguments: [
        #"{"lat": NaN}"#, #"{"a":1,}"#, #"{"a":1"#, "", "[1 2]", #"{"a":Infinity}"#, #""\x""#, "01", "{\"a\":\"\u{01}\"}",
    ])
    func rejectsInvalidDocuments(_ text: String) {
        #expect(throws: JSONParser.ParseError.self) { try JSONParser.parse(text) }
    }

    // MARK: Writing

    @Test func htmlSafeWriterEscapesScriptClose() {
        let text = JSONWriter(htmlSafe: true).string(["x": "</script><script>alert(1)</script>&"])
        #expect(!text.contains("<"))
        #expect(!text.contains(">"))
        #expect(text.contains("\\u003c/script\\u003e"))
    }

    @Test func sortedKeysAreDeterministic() {
        let value: JSONValue = ["z": 1, "a": ["y": 2, "b": 3]]
        #expect(JSONWriter(sortedKeys: true).string(value) == #"{"a":{"b":3,"y":2},"z":1}"#)
    }
}

@Suite struct FieldScannerTests {
    let scanner = FieldScanner(paths: ["uuid", "coords.latitude", "coords.accuracy", "is_moving", "coords", "extras.note"])

    @Test func picksRequestedFields() throws {
        let values = try #require(scanner.scan(#"{"uuid":"u-1","coords":{"latitude":52.25,"accuracy":-1},"is_moving":null,"extras":{"note":"a\"b"}}"#))
        #expect(values[0] == .string("u-1"))
        #expect(values[1] == .number(52.25))
        #expect(values[2] == .number(-1))
        #expect(values[3] == .null)
        #expect(values[4] == .composite)
        #expect(values[5] == .string("a\"b"))
    }

    @Test func missingFieldsAreMissing() throws {
        let values = try #require(scanner.scan(#"{"other":{"latitude":1}}"#))
        #expect(values.allSatisfy { $0 == .missing })
    }

    @Test(arguments: [#"{"coords":{"latitude":NaN}}"#, #"{"uuid":"x""#, #"[1]"#, #"{"a":1}x"#, #"{"a":01}"#])
    func rejectsWhatTheStrictParserRejects(_ text: String) {
        #expect(scanner.scan(text) == nil)
    }

    @Test func numbersMatchTheStandardLibrary() throws {
        for text in ["52.229712345678", "-0.5", "1e3", "21.0122", "123456789.123456789", "0.1", "-33.8688"] {
            let values = try #require(FieldScanner(paths: ["n"]).scan("{\"n\":\(text)}"))
            #expect(values[0] == .number(Double(text)!), "\(text)")
        }
    }
}

/// The scanner against the strict parser on thousands of generated documents and damaged
/// copies of them: same verdict on validity, same values for the picked fields. Strings are
/// long enough to cross the scanner's eight-byte steps with the special byte at every offset.
@Suite struct FieldScannerDifferentialTests {
    private static let paths = ["a", "b", "n.x", "n.y", "s"]

    private static func randomString(_ rng: inout SplitMix64) -> String {
        // No surrogate escapes: a damaged pair leaves a lone surrogate, valid to the grammar (and
        // to the scanner, like SQLite's json_valid) but refused by the strict parser.
        let pieces = ["x", "é", "✓", "😀", "\\\"", "\\\\", "\\n", "\\u00e9", " ", "1234567", "\\/"]
        var out = ""
        for _ in 0..<rng.int(0...24) { out += pieces[rng.int(0...(pieces.count - 1))] }
        return "\"" + out + "\""
    }

    private static func randomNumber(_ rng: inout SplitMix64) -> String {
        let shapes = ["0", "-0", "7", "-12.5", "52.2440006", "123456789012345", "1234567890123456789", "0.000001",
                      "1e3", "-2.5E-3", "3.14159265358979", "20.98600470000001"]
        return shapes[rng.int(0...(shapes.count - 1))]
    }

    /// `text` with one byte dropped, duplicated or replaced (a control byte among the replacements).
    static func damaged(_ text: String, _ rng: inout SplitMix64) -> String {
        guard !text.utf8.isEmpty else { return text }
        var bytes = Array(text.utf8)
        let at = rng.int(0...(bytes.count - 1))
        switch rng.int(0...2) {
        case 0: bytes.remove(at: at)
        case 1: bytes.insert(bytes[at], at: at)
        default: bytes[at] = [0x01, 0x22, 0x5C, 0x7D, 0x2C, 0x20][rng.int(0...5)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func randomValue(_ rng: inout SplitMix64, depth: Int) -> String {
        switch rng.int(0...(depth > 1 ? 4 : 6)) {
        case 0, 1: return randomString(&rng)
        case 2, 3: return randomNumber(&rng)
        case 4: return ["true", "false", "null"][rng.int(0...2)]
        case 5: return "[" + (0..<rng.int(0...3)).map { _ in randomValue(&rng, depth: depth + 1) }.joined(separator: ",") + "]"
        default: return randomObject(&rng, depth: depth + 1)
        }
    }

    private static func randomObject(_ rng: inout SplitMix64, depth: Int) -> String {
        let keys = ["a", "b", "n", "s", "x", "y", "longer_key_name", "k\\\"q"]
        let members = (0..<rng.int(0...5)).map { _ in
            "\"" + keys[rng.int(0...(keys.count - 1))] + "\":" + randomValue(&rng, depth: depth)
        }
        return "{" + members.joined(separator: rng.chance(0.2) ? " , " : ",") + "}"
    }

    /// What the scanner should give for `path`, from the parser's tree.
    static func expected(_ tree: JSONValue, _ path: String) -> ScannedValue {
        let parts = path.split(separator: ".").map(String.init)
        var node: JSONValue? = tree
        for part in parts {
            guard case .object(let object)? = node else { return .missing }
            // A repeated name's first value, as the parser's subscript reads it (and the scanner).
            node = object[part]
        }
        switch node {
        case nil: return .missing
        case .null?: return .null
        case .bool(let b)?: return .bool(b)
        case .int(let i)?: return .number(Double(i))
        case .double(let d)?: return .number(d)
        case .string(let s)?: return .string(s)
        default: return .composite
        }
    }

    @Test func agreesWithTheParserOnGeneratedAndDamagedDocuments() {
        var rng = SplitMix64(seed: 20261130)
        let scanner = FieldScanner(paths: Self.paths)
        var checkedValid = 0, checkedInvalid = 0
        for round in 0..<3000 {
            var text = Self.randomObject(&rng, depth: 0)
            if round % 2 == 1 { text = Self.damaged(text, &rng) }
            let tree = try? JSONParser.parse(text)
            let isObject: Bool = { if case .object? = tree { return true } else { return false } }()
            var copy = text
            #expect(copy.withUTF8 { FieldScanner.isValidJSON($0) } == (tree != nil), "\(text)")
            let values = scanner.scan(text)
            #expect((values != nil) == isObject, "\(text)")
            guard let tree, let values, isObject, !Self.hasRepeatedKeys(text) else {
                checkedInvalid += 1
                continue
            }
            checkedValid += 1
            for (i, path) in Self.paths.enumerated() {
                #expect(values[i] == Self.expected(tree, path), "\(path) in \(text)")
            }
        }
        #expect(checkedValid > 1000)
        #expect(checkedInvalid > 500)
    }

    /// Repeated keys: which copy wins is not what this test is about.
    private static func hasRepeatedKeys(_ text: String) -> Bool {
        for key in ["a", "b", "n", "s", "x", "y"] {
            if text.components(separatedBy: "\"\(key)\":").count > 2 { return true }
        }
        return false
    }
}

@Suite struct JSONValidityTests {
    /// The validity check must agree with the strict parser on every kind of document.
    @Test(arguments: [
        #"{"a":[1,2.5e3,-0.1,true,false,null,"x\n\u00e9"]}"#, "[]", "\"s\"", " 12 ", "null",
        #"{"a":NaN}"#, #"{"a":1,}"#, "[1 2]", "", "  ", #"{"a":"\x"}"#, "01", "{\"a\":\"\u{01}\"}", "[1]x", #"{"a""#,
    ])
    func agreesWithTheParser(_ text: String) {
        var copy = text
        let valid = copy.withUTF8 { FieldScanner.isValidJSON($0) }
        let parses = (try? JSONParser.parse(text)) != nil
        #expect(valid == parses, "\(text)")
    }
}

/// `JSONByteCursor.skipString` reads eight bytes at a time and jumps to the first that needs a
/// look: a quote, a backslash, a control character or a byte of a multi-byte character placed at
/// every offset of a string, after every length of plain text, is judged as the parser judges it.
@Suite struct StringSkipTests {
    @Test func everyOffsetOfEverySpecialByte() {
        let specials = ["\"", "\\\"", "\\\\", "\\n", "\\u00e9", "\\x", "\u{01}", "\u{1F}", "\\", "é", "€", "\u{7F}", " ", "\\u12"]
        var checked = 0
        for before in 0..<20 {
            for special in specials {
                for after in 0..<12 {
                    let body = String(repeating: "a", count: before) + special + String(repeating: "b", count: after)
                    for text in ["{\"k\":\"" + body + "\"}", "[\"" + body + "\",1]", "\"" + body + "\""] {
                        var copy = text
                        let valid = copy.withUTF8 { FieldScanner.isValidJSON($0) }
                        #expect(valid == ((try? JSONParser.parse(text)) != nil), "\(text.debugDescription)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 20 * 14 * 12 * 3)
    }
}
