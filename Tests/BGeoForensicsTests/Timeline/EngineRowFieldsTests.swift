import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Engine rows (`EngineRowKind`) are read by one field scan (`EngineRowFields`), not a JSON tree:
/// the scan must read what the parsed tree states, as the timeline read it from the tree before.
@Suite struct EngineRowFieldsTests {
    struct Reading: Equatable {
        var reason: String?, connected: Bool?, transport: String?, success: Bool?, status: Int?

        init(_ fields: EngineRowFields) {
            reason = fields.reason
            connected = fields.connected
            transport = fields.transport
            success = fields.success
            status = fields.status
        }

        /// The tree's reading (the timeline's rules before issue 27 moved these rows to their cells).
        init(tree text: String) {
            let data = try? JSONParser.parse(text)
            reason = data?["reason"]?.stringValue
            connected = data?["connected"]?.boolValue
            transport = data?["transport"]?.stringValue
            success = data?["success"]?.boolValue ?? UploadTracker.int(data?["success"]).map { $0 != 0 }
            status = UploadTracker.int(data?["status"])
        }
    }

    static func randomRow(_ rng: inout SplitMix64) -> String {
        func pick(_ choices: [String]) -> String { choices[rng.int(0...(choices.count - 1))] }
        let scalar = ["1", "0", "-3", "401", "2.5", "1e3", "400.0", "-0", "9007199254740993", "12345678901234567890",
                      "\"7\"", "\" 42 \"", "\"4x\"", "\"wifi\"", "\"c\\u0065ll\"", "\"\\ud83d\\ude00\"", "null", "true",
                      "false", "{}", "[]", "{\"a\":[1,{\"b\":2}]}"]
        var members: [String] = []
        var used = Set<String>()
        for _ in 0..<rng.int(0...5) {
            let key = pick(["reason", "connected", "transport", "success", "status", "other", "Status"])
            // One member per name: JSON leaves a repeated name's reading open.
            guard used.insert(key).inserted else { continue }
            members.append("\"\(key)\"" + pick([":", " : "]) + pick(scalar))
        }
        let object = "{" + members.joined(separator: pick([",", ", "])) + "}"
        return pick([object, object, object, object, "[1,2]", "not json", "{\"status\":", "", "\"text\"", "{\"a\":1} x"])
    }

    @Test func scanReadsWhatTheTreeStates() {
        var rng = SplitMix64(seed: 2027)
        var differences = 0, stated = 0
        var sample: String?
        for _ in 0..<20_000 {
            let text = Self.randomRow(&rng)
            var copy = text
            let fields = copy.withUTF8 { EngineRowFields(data: $0) }
            let tree = Reading(tree: text)
            if tree.status != nil || tree.success != nil { stated += 1 }
            if Reading(fields) != tree || fields.isObject != (try? JSONParser.parse(text))?.objectValue.map({ _ in true }) ?? false {
                differences += 1
                if sample == nil { sample = text }
            }
        }
        #expect(stated > 2_000)
        #expect(differences == 0, "first: \(sample ?? "")")
    }
}
