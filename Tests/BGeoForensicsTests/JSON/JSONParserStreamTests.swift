import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `JSONParser.stream` reads as `parse` does: on random documents (whitespace, escapes, repeated
/// names, odd numbers, nesting past the depth limit) and the same documents damaged, the tokens it
/// hands on rebuild `parse`'s tree, and a document `parse` rejects is rejected with the same
/// offset and reason.
@Suite struct JSONParserStreamTests {
    /// Rebuilds the tree from the tokens.
    struct TreeSink: JSONTokenSink {
        enum Open { case object([(key: String, value: JSONValue)], key: String?), array([JSONValue]) }
        var stack: [Open] = []
        var result: JSONValue?

        mutating func place(_ value: JSONValue) {
            guard let top = stack.popLast() else { result = value; return }
            switch top {
            case .object(var members, let key): members.append((key!, value)); stack.append(.object(members, key: nil))
            case .array(var elements): elements.append(value); stack.append(.array(elements))
            }
        }
        mutating func beginObject() { stack.append(.object([], key: nil)) }
        mutating func endObject() {
            guard case .object(let members, _) = stack.popLast() else { Issue.record("unbalanced object"); return }
            place(.object(JSONObject(members)))
        }
        mutating func beginArray() { stack.append(.array([])) }
        mutating func endArray() {
            guard case .array(let elements) = stack.popLast() else { Issue.record("unbalanced array"); return }
            place(.array(elements))
        }
        mutating func key(_ key: String) {
            guard case .object(let members, _) = stack.popLast() else { Issue.record("a key outside an object"); return }
            stack.append(.object(members, key: key))
        }
        mutating func scalar(_ value: JSONValue) { place(value) }
    }

    static func streamed(_ text: String, maxDepth: Int) -> Result<JSONValue?, JSONParser.ParseError> {
        var sink = TreeSink()
        var text = text
        return text.withUTF8 { bytes in
            do throws(JSONParser.ParseError) {
                try JSONParser.stream(bytes: bytes, into: &sink, maxDepth: maxDepth)
                return .success(sink.result)
            } catch {
                return .failure(error)
            }
        }
    }

    static func parsed(_ text: String, maxDepth: Int) -> Result<JSONValue?, JSONParser.ParseError> {
        var text = text
        return text.withUTF8 { bytes in
            do throws(JSONParser.ParseError) { return .success(try JSONParser.parse(bytes: bytes, maxDepth: maxDepth)) } catch { return .failure(error) }
        }
    }

    @Test func tokensRebuildTheTreeAndErrorsMatch() {
        var rng = SplitMix64(seed: 20261212)
        var (same, rejected) = (0, 0)
        for round in 0..<8_000 {
            var text = RedactedJSONTextTests.randomJSON(&rng)
            if round % 3 == 2 { text = RedactedJSONTextTests.damaged(text, &rng) }
            let maxDepth = round % 5 == 4 ? 3 : JSONParser.maxDepth
            switch (JSONParserStreamTests.parsed(text, maxDepth: maxDepth), JSONParserStreamTests.streamed(text, maxDepth: maxDepth)) {
            case (.success(let tree), .success(let rebuilt)):
                #expect(tree == rebuilt, "\(text)")
                same += 1
            case (.failure(let a), .failure(let b)):
                #expect(a.offset == b.offset && a.reason == b.reason, "\(text): \(a) / \(b)")
                rejected += 1
            case (let a, let b):
                Issue.record("\(text): parse \(a), stream \(b)")
            }
        }
        #expect(same > 3_000 && rejected > 2_000, "\(same) read alike, \(rejected) rejected alike")
    }
}
