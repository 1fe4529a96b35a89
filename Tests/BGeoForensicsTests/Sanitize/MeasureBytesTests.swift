import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSanitize
@testable import BGeoSimulation

/// The survey measures most rows from their bytes (`JSONSanitizer.measure(bytes:)`), the rest by
/// the tree's walk (`measure`). On random and hostile documents the two must find the same
/// longitudes: measuring every document by bytes-or-tree gives the tree's extent exactly.
@Suite struct MeasureBytesTests {
    static func randomDocument(_ rng: inout SplitMix64, depth: Int = 0) -> String {
        func pick(_ choices: [String]) -> String { choices[rng.int(0...(choices.count - 1))] }
        let numbers = ["21.0122344", "-179.5", "180", "180.0001", "-0", "-0.0", "0", "7", "1e2", "2.5E-3", "-12.25",
                       "123456789012345678901234567890", "1234567890123456789012345678901", "1e400", "52.2297182"]
        let scalars = numbers + ["\"21.5\"", "\"wifi\"", "\"{\\\"longitude\\\":12.5}\"", "\"[1]\"", "\"caf\u{e9}\"",
                                 "\"a\\u0041\"", "true", "null", "\"\"",
                                 // Outside ASCII (stop 56: read from the bytes).
                                 "\"Krak\u{F3}w\"", "\"\u{202E}x\"", "\"{\\\"longitude\\\":1,\\\"n\\\":\\\"\u{E9}\\\"}\""]
        guard depth < 3, rng.int(0...3) != 0 else { return pick(scalars) }
        if rng.int(0...4) == 0 {
            return "[" + (0..<rng.int(0...3)).map { _ in randomDocument(&rng, depth: depth + 1) }.joined(separator: ",") + "]"
        }
        let keys = ["longitude", "latitude", "raw_longitude", "Adjusted_Longitude", "lng", "lon", "lat", "heading",
                    "extras", "params", "accessToken", "authorization", "headers", "coords", "uuid", "note", "longitude",
                    "\u{E9}", "e\u{301}", "lon\u{E9}"]
        let members = (0..<rng.int(0...6)).map { _ -> String in
            let key = pick(keys)
            let value = ["longitude", "raw_longitude", "Adjusted_Longitude", "lng", "lon"].contains(key) && rng.int(0...2) > 0
                ? pick(numbers) : randomDocument(&rng, depth: depth + 1)
            return "\"\(key)\"" + pick([":", " : "]) + value
        }
        return "{" + members.joined(separator: pick([",", ", ", ",\n"])) + "}"
    }

    @Test(arguments: [ExtrasPolicy.hash, .keep, .drop])
    func bytesOrTreeMeasureWhatTheTreeMeasures(extras: ExtrasPolicy) {
        var rng = SplitMix64(seed: 4242)
        let byBytes = SanitizePartsTests.sanitizer(extras: extras), byTree = SanitizePartsTests.sanitizer(extras: extras)
        var taken = 0, measured = 0
        for _ in 0..<20_000 {
            let text = Self.randomDocument(&rng) + ["", "", "", " ", "x", "}"][rng.int(0...5)]
            let before = byTree.extent.count
            if let value = try? JSONParser.parse(text) { byTree.measure(value) }
            if byTree.extent.count > before { measured += 1 }
            var copy = text
            if copy.withUTF8({ byBytes.measure(bytes: $0) }) {
                taken += 1
            } else if let value = try? JSONParser.parse(text) {
                byBytes.measure(value)
            }
            if byBytes.extent != byTree.extent {
                Issue.record("after \(text): \(byBytes.extent) vs \(byTree.extent)")
                return
            }
        }
        // Both paths are exercised, and the documents hold longitudes to find.
        #expect(taken > 5_000 && taken < 19_000, "\(taken)")
        #expect(measured > 2_000, "\(measured)")
    }

    /// A record's longitude found from its bytes is the one the tree finds, and a document the
    /// parser refuses (a number out of range anywhere) is measured by neither.
    @Test func aRecordIsMeasuredAndARefusedDocumentIsNot() {
        let json = SanitizePartsTests.sanitizer()
        var record = #"{"uuid":"u","coords":{"latitude":52.2,"longitude":21.01,"heading":90},"extras":{"longitude":100}}"#
        #expect(record.withUTF8 { json.measure(bytes: $0) })
        #expect(json.extent.count == 1 && json.extent.maxLongitude == 21.01)
        var refused = #"{"longitude":20,"x":1e400}"#
        #expect(!refused.withUTF8 { json.measure(bytes: $0) })
        var long = #"{"longitude":20,"x":"# + String(repeating: "9", count: 400) + "}"
        #expect(!long.withUTF8 { json.measure(bytes: $0) })
        #expect(json.extent.count == 1)
    }
}
