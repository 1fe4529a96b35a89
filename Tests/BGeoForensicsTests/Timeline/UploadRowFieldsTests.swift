import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Upload rows are read by one field scan (`UploadRowFields`), not a JSON tree: the scan must
/// read what the parsed tree states, on random and hostile rows.
@Suite struct UploadRowFieldsTests {
    /// The tree's reading, by the rules `UploadRowFields` documents.
    struct Reference: Equatable {
        var uuids: [String], uuidCount: Int, count: Int?, url: String?, status: Int?, ms: Double?
        var response: String?, retryAfter: Double?, failuresValue: Double?, failures: Int?, delay: Double?

        init(_ fields: UploadRowFields) {
            uuids = fields.uuids
            uuidCount = fields.uuidCount
            count = fields.count
            url = fields.url
            status = fields.status
            ms = fields.ms
            response = fields.response
            retryAfter = fields.retryAfter
            failuresValue = fields.failuresValue
            failures = fields.failures
            delay = fields.delay
        }

        init(tree text: String, uuidLimit: Int) {
            let data = try? JSONParser.parse(text)
            // The tracker's own reading of a parsed value: one rule for both paths.
            func int(_ value: JSONValue?) -> Int? { UploadTracker.int(value) }
            let all = UploadTracker.strings(data?["uuids"])
            uuids = Array(all.prefix(uuidLimit))
            uuidCount = all.count
            count = int(data?["count"])
            url = data?["url"]?.stringValue
            status = int(data?["status"])
            ms = data?["ms"]?.doubleValue
            response = data?["response"].flatMap { $0 == .null ? nil : ($0.stringValue ?? $0.jsonText) }
            retryAfter = (data?["retry_after"] ?? data?["retryAfter"]).flatMap(UploadTracker.double)
            failuresValue = data?["failures"].flatMap(UploadTracker.double)
            failures = int(data?["failures"])
            delay = data?["delay_s"].flatMap(UploadTracker.double)
        }
    }

    static func randomRow(_ rng: inout SplitMix64) -> String {
        func pick(_ choices: [String]) -> String { choices[rng.int(0...(choices.count - 1))] }
        let scalar = ["1", "0", "-3", "401", "2.5", "1e3", "1.0", "-0", "9007199254740993", "12345678901234567890",
                      "\"7\"", "\" 42 \"", "\"4x\"", "\"1e2\"", "\"nan\"", "\"inf\"", "null", "true", "false",
                      "\"ok\"", "\"a\\\"b\"", "\"\\u00e9t\\u00e9\"", "\"\\ud83d\\ude00\"", "{}", "[]", "{\"a\":[1,{\"b\":2}]}"]
        var members: [String] = []
        // Names may repeat (the first value is the one read) and be escaped (`\u0075rl` is `url`).
        let keys = ["uuids", "count", "url", "status", "ms", "response", "retry_after", "retryAfter", "Retry-After",
                    "failures", "delay_s", "uuid", "other", "url2", "\\u0075uids", "\\u0075rl", "st\\u0061tus", "retry\\u0041fter"]
        for _ in 0..<rng.int(0...7) {
            let key = pick(keys)
            let value: String
            if key.hasSuffix("uids") {
                var elements: [String] = []
                for _ in 0..<rng.int(0...30) {
                    elements.append(pick(["\"1c1f8a3e-8d0a-4e55-9c5e-0b7f6d2a9e11\"", "\"u\(rng.int(0...99))\"", "\"\\u0041b\"", "7",
                                          "null", "[\"n\"]", "{\"x\":\"y\"}", "\"\"", "\"\\ud800\\udc00\""]))
                }
                value = pick(["[" + elements.joined(separator: pick([",", " , ", ",\n"])) + "]", "\"not an array\"", "{\"0\":\"a\"}", "null"])
            } else if key.hasSuffix("rl") {
                value = pick(["\"https://user:pw@ingest.example.com/v1?token=abc\"", "\"https://a.example/x\"", "5", "null"])
            } else {
                value = pick(scalar)
            }
            members.append("\"\(key)\"" + pick([":", " : "]) + value)
        }
        let object = "{" + members.joined(separator: pick([",", ", "])) + "}"
        return pick([object, object, object, object, "[1,2]", "not json", "{\"status\":", "", "\"text\""])
    }

    @Test func scanReadsWhatTheTreeStates() {
        var rng = SplitMix64(seed: 27)
        var differences = 0
        var sample: String?
        for _ in 0..<20_000 {
            let text = Self.randomRow(&rng)
            for limit in [0, 4, 20] {
                var copy = text
                let scanned = copy.withUTF8 { Reference(UploadRowFields(data: $0, uuidLimit: limit)) }
                let tree = Reference(tree: text, uuidLimit: limit)
                if scanned != tree {
                    differences += 1
                    if sample == nil { sample = text + " (limit \(limit))" }
                }
            }
        }
        #expect(differences == 0, "first: \(sample ?? "")")
    }

    /// Regression (issue 27): the scan read an integer literal of 9e15 or more as nothing, where
    /// the tree (`UploadTracker.int`, which reads the refresh and drop rows) reads it as written.
    @Test func anIntegerLiteralReadsAsTheTreeReadsIt() {
        for (literal, expected) in [("9007199254740993", 9_007_199_254_740_993), ("-9223372036854775808", Int.min),
                                    ("400.0", 400), ("1e3", 1000), ("-0", 0), ("4E2", 400)] as [(String, Int)] {
            var text = "{\"status\":\(literal)}"
            #expect(text.withUTF8 { UploadRowFields(data: $0, uuidLimit: 0).status } == expected, "\(literal)")
            #expect(UploadTracker.int((try? JSONParser.parse(text))?["status"]) == expected, "\(literal)")
        }
        for literal in ["12345678901234567890", "9.5e15", "2.5", "1e400"] {
            var text = "{\"status\":\(literal)}"
            #expect(text.withUTF8 { UploadRowFields(data: $0, uuidLimit: 0).status } == nil, "\(literal)")
        }
    }

    @Test func aRowWithoutDataOrNotAnObjectStatesNothing() {
        #expect(!UploadRowFields(data: nil, uuidLimit: 20).isObject)
        var text = "[{\"status\":500}]"
        let fields = text.withUTF8 { UploadRowFields(data: $0, uuidLimit: 20) }
        #expect(!fields.isObject && fields.status == nil)
        var object = "{\"status\":\"503\",\"uuids\":[\"a\",1,\"b\"],\"retryAfter\":\" 30 \"}"
        let read = object.withUTF8 { UploadRowFields(data: $0, uuidLimit: 1) }
        #expect(read.isObject && read.status == 503 && read.uuids == ["a"] && read.uuidCount == 2 && read.retryAfter == 30)
    }

    /// Regression (stop 51): the fast path read a repeated `status` by its last value, the tree by
    /// its first: `{"status":500,"status":200}` was a success on one path and a failure on the other.
    @Test func aRepeatedOrEscapedNameReadsAsTheTreeReadsIt() {
        for (text, status) in [(#"{"status":500,"status":200}"#, 500), (#"{"st\u0061tus":401,"status":200}"#, 401),
                               (#"{"status":"503","st\u0061tus":200}"#, 503)] {
            var copy = text
            #expect(copy.withUTF8 { UploadRowFields(data: $0, uuidLimit: 0).status } == status, "\(text)")
            #expect(Reference(tree: text, uuidLimit: 0).status == status, "\(text)")
        }
        var text = #"{"uuids":["a"],"\u0075uids":["b","c"],"retry_after":null,"retryAfter":9}"#
        let fields = text.withUTF8 { UploadRowFields(data: $0, uuidLimit: 5) }
        #expect(fields.uuids == ["a"] && fields.uuidCount == 1)
        #expect(Reference(fields) == Reference(tree: text, uuidLimit: 5))
    }
}

