import Testing
@testable import BGeoForensics

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
