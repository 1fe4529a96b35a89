import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSanitize
@testable import BGeoSimulation

/// The writing stage sanitises most documents from their bytes (`JSONSanitizer.sanitize(bytes:)`)
/// and the rest by the tree's walk. On random and hostile documents the cell written and the
/// changes counted must be exactly the tree's, under every policy.
@Suite struct SanitizeBytesTests {
    static let secret = "rt-shape-secret-7f3a"

    /// Mostly documents in the writer's form (compact, plain strings), with the forms the byte
    /// walk must leave to the tree mixed in.
    static func randomDocument(_ rng: inout SplitMix64, depth: Int = 0) -> String {
        func pick(_ choices: [String]) -> String { choices[rng.int(0...(choices.count - 1))] }
        let numbers = ["21.0122344", "-179.5", "180", "180.0001", "-0", "-0.0", "0", "7", "8.0", "1e2", "-12.25", "52.2297182",
                       "-91", "90", "123456789012345678", "1234567890123456789", "0.1", "100.10", "1e400", "359.0"]
        let strings = ["\"wifi\"", "\"2026-03-01T06:00:05.000Z\"", "\"f3889a1c-cfea-4d19-a240-6d5ebdc749a8\"",
                       "\"https://user:pw@ingest.example.com/v1/locations?x=1\"", "\"https://auth.example.com/refresh\"",
                       "\"Bearer abc.def\"", "\"eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3OTAwMDAwMDB9.c2ln\"", "\"\(secret)\"",
                       "\"token=\(secret)\"", "\"{\\\"longitude\\\":12.5}\"", "\"{not json\"", "\"[1]\"", "\"caf\u{e9}\"",
                       "\"a\\u0041\"", "\"\"", "\"21.5\"", "\"mail me@example.com\"", "\"password=hunter2\"",
                       // Outside ASCII (stop 56: taken from their bytes): a Kelvin sign spelling `key`,
                       // a bidi override the writer escapes, a city, a secret after an accent.
                       "\"\u{212A}ey=abcd\"", "\"\u{202E}x\"", "\"Krak\u{F3}w\"", "\"\u{E9} \(secret)\""]
        let scalars = numbers + strings + ["true", "false", "null"]
        guard depth < 3, rng.int(0...3) != 0 else { return pick(scalars) }
        let separator = rng.int(0...15) == 0 ? pick([", ", ",\n"]) : ","
        if rng.int(0...4) == 0 {
            return "[" + (0..<rng.int(0...3)).map { _ in randomDocument(&rng, depth: depth + 1) }.joined(separator: separator) + "]"
        }
        let keys = ["longitude", "latitude", "raw_longitude", "raw_latitude", "Adjusted_Longitude", "adjusted_latitude",
                    "lng", "lon", "lat", "heading", "extras", "params", "accessToken", "authorization", "headers",
                    "coords", "uuid", "note", "url", "Longitude", "odometer", "fleetId", "to\u{212A}en", "miasto\u{301}"]
        var used: [String] = []
        let members = (0..<rng.int(0...6)).map { _ -> String in
            var key = pick(keys)
            // Duplicate keys are rare in dumps, and the tree keeps one: mostly avoided.
            if used.contains(key), rng.int(0...7) != 0 { key += "2" }
            used.append(key)
            let positional = ["longitude", "latitude", "raw_longitude", "raw_latitude", "Adjusted_Longitude", "adjusted_latitude",
                              "lng", "lon", "lat", "heading"].contains(key)
            let value = positional && rng.int(0...3) > 0 ? pick(numbers) : randomDocument(&rng, depth: depth + 1)
            return "\"\(key)\"" + (rng.int(0...15) == 0 ? " : " : ":") + value
        }
        return "{" + members.joined(separator: separator) + "}"
    }

    /// The cell the writing stage would produce by the tree alone (what `RowSanitizer` did before).
    static func byTree(_ text: String, _ json: JSONSanitizer, _ changes: inout CellChanges) -> String? {
        guard let parsed = try? JSONParser.parse(text) else { return nil }
        var local = CellChanges()
        let result = json.sanitize(parsed, &local)
        guard !local.isEmpty else { return text }
        changes.formUnion(local)
        return result.jsonText
    }

    static let transforms: [CoordinateTransform] = [
        .keep, CoordinateTransform(kind: .shift(halfTurn: true, delta: 2.5, exact: false)),
        CoordinateTransform(kind: .shift(halfTurn: false, delta: -0.000123, exact: false)), .coarsen(metres: 500),
    ]

    @Test(arguments: [ExtrasPolicy.hash, .keep, .drop], [0, 1, 2, 3])
    func bytesOrTreeWriteWhatTheTreeWrites(extras: ExtrasPolicy, transform: Int) {
        var rng = SplitMix64(seed: 2718 + UInt64(transform))
        let json = SanitizePartsTests.sanitizer(extras: extras, urls: transform == 1 ? .keep : .host,
                                                coordinates: Self.transforms[transform], secrets: [Self.secret])
        var taken = 0, rewritten = 0, spacedTaken = 0
        for round in 0..<20_000 {
            var text = Self.randomDocument(&rng) + (rng.int(0...15) == 0 ? pick(&rng, [" ", "x", "}"]) : "")
            // A quarter spaced as Python's json.dumps writes them (stop 55: taken from their bytes too).
            if round % 4 == 0 { text = VerbatimJSONTests.spaced(text, &rng) }
            let isSpaced = text.utf8.withContiguousStorageIfAvailable { VerbatimJSON.form($0) } == .spaced
            var treeChanges = CellChanges(), byteChanges = CellChanges()
            let tree = Self.byTree(text, json, &treeChanges)
            var copy = text
            let bytes: String?
            switch copy.withUTF8({ json.sanitize(bytes: $0, &byteChanges) }) {
            case .unchanged: bytes = text; taken += 1; spacedTaken += isSpaced ? 1 : 0
            case .rewritten(let out): bytes = out; taken += 1; rewritten += 1; spacedTaken += isSpaced ? 1 : 0
            case .needsTree:
                #expect(byteChanges.isEmpty, "declined after counting a change: \(text)")
                bytes = Self.byTree(text, json, &byteChanges)
            }
            if bytes != tree || byteChanges != treeChanges {
                Issue.record("\(text)\n bytes \(bytes ?? "nil") \(byteChanges.rawValue)\n tree  \(tree ?? "nil") \(treeChanges.rawValue)")
                return
            }
        }
        // Both paths are exercised, and the byte path rewrites documents, not only keeps them.
        #expect(taken > 4_000 && taken < 19_000, "\(taken)")
        #expect(rewritten > 1_000, "\(rewritten)")
        #expect(spacedTaken > 1_000, "\(spacedTaken)")
    }

    private func pick(_ rng: inout SplitMix64, _ choices: [String]) -> String { choices[rng.int(0...(choices.count - 1))] }

    /// A queue record as devices write it: its position moved, its heading turned, its extras
    /// hashed, and every other byte copied.
    @Test func aRecordIsRewrittenInPlace() {
        let json = SanitizePartsTests.sanitizer(coordinates: CoordinateTransform(kind: .shift(halfTurn: true, delta: 2, exact: true)))
        var record = #"{"uuid":"f3889a1c-cfea-4d19-a240-6d5ebdc749a8","coords":{"latitude":52.5,"longitude":21.25,"accuracy":8.0,"heading":90.0},"extras":{"fleetId":"shape-7","n":3,"ok":true,"none":null,"empty":""}}"#
        var changes = CellChanges()
        let outcome = record.withUTF8 { json.sanitize(bytes: $0, &changes) }
        guard case .rewritten(let out) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(changes == [.coordinates, .extras])
        #expect(out.hasPrefix(#"{"uuid":"f3889a1c-cfea-4d19-a240-6d5ebdc749a8","coords":{"latitude":-52.5,"longitude":"#))
        #expect(out.contains(#""accuracy":8.0,"heading":270.0}"#))
        #expect(out.contains(#""none":null,"empty":""}}"#) && !out.contains("shape-7"))
        var treeChanges = CellChanges()
        #expect(out == Self.byTree(record, json, &treeChanges))
    }

    /// What the redactor or a nested document decides is left to the tree, with nothing counted.
    @Test func sensitiveValuesHeadersAndNestedDocumentsNeedTheTree() {
        let json = SanitizePartsTests.sanitizer()
        for text in [#"{"accessToken":"abc"}"#, #"{"headers":{"Authorization":"Bearer x"}}"#, #"{"body":"{\"a\":1}"}"#,
                     #"{"body":"{x"}"#, #"{"extras":{"password":"p"}}"#, #"{"a":1e2}"#, "{\"a\":\"\u{202E}x\"}",
                     #"{"a": 1, "accessToken": "abc"}"#] {
            var changes = CellChanges()
            var copy = text
            #expect(copy.withUTF8 { json.sanitize(bytes: $0, &changes) } == .needsTree, "\(text)")
            #expect(changes.isEmpty)
        }
        // Whitespace between tokens alone no longer sends a document to the tree (stop 55).
        var changes = CellChanges()
        var spaced = #"{"a": 1 , "b": [true, null] }"#
        #expect(spaced.withUTF8 { json.sanitize(bytes: $0, &changes) } == .unchanged)
        // Nor does a key written twice (stop 56): each member is walked, as the tree walks them.
        let moving = SanitizePartsTests.sanitizer(coordinates: CoordinateTransform(kind: .shift(halfTurn: false, delta: 1.5, exact: false)))
        var twice = #"{"longitude":20.5,"latitude":52.1,"longitude":21.5,"note":"x","note":"y"}"#
        var byBytes = CellChanges(), byTree = CellChanges()
        let outcome = twice.withUTF8 { moving.sanitize(bytes: $0, &byBytes) }
        guard case .rewritten(let text) = outcome else { Issue.record("\(outcome)"); return }
        #expect(text == Self.byTree(twice, moving, &byTree) && byBytes == byTree, "\(text)")
    }
}
