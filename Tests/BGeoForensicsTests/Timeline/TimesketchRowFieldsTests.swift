import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `TimesketchRowFields` reads a row's fields from its bytes; the definition is the reading of the
/// redacted tree the Timesketch writer used before (stop 54): `uuid` and the string elements of
/// `uuids`, `status`, `success`, `failures`, `delay_s`, `next_attempt_at`, `count`, `reason`.
@Suite struct TimesketchRowFieldsTests {
    static let keys = ["uuid", "uuids", "status", "success", "failures", "delay_s", "next_attempt_at", "count", "reason",
                       "st\\u0061tus", "accessToken", "note"]
    static let scalars = ["0", "-0", "1.0", "401", "2.5", "12345678901234567890", "1e5", "1e400", "-7", "true", "false", "null",
                          "\"\"", "\" 401 \"", "\"429\"", "\"1.5\"", "\"nan\"", "\"inf\"", "\"x\"", "\"\\u0034\\u0030\\u0031\"",
                          "\"\(RedactedJSONTextTests.secret)\"", "\"https://u:hunter2pass@example.com/x\"", "\"é\\n\\\"\"",
                          "\"\\u001b[2J\"", "\"2026-07-24T07:00:00Z\"", "\"Bearer abcdef123456\""]

    static func value(_ rng: inout SplitMix64, depth: Int) -> String {
        switch rng.int(0...(depth > 2 ? 3 : 5)) {
        case 0, 1, 2: return scalars[rng.int(0...(scalars.count - 1))]
        case 3: return "\"" + rng.uuid() + "\""
        case 4: return "[" + (0..<rng.int(0...5)).map { _ in value(&rng, depth: depth + 1) }.joined(separator: ", ") + "]"
        default: return object(&rng, depth: depth + 1)
        }
    }

    static func object(_ rng: inout SplitMix64, depth: Int = 0) -> String {
        "{" + (0..<rng.int(0...7)).map { _ in
            "\"" + keys[rng.int(0...(keys.count - 1))] + "\" : " + value(&rng, depth: depth)
        }.joined(separator: ",") + "}"
    }

    /// The tree's readings, as the writer made them from `redactor.redact(parse(text))`.
    struct Reading: Equatable {
        var uuids: String, uuidCount: Int, dropped: String, droppedCount: Int
        var status: Int?, success: Bool?, failures: Int?, delay: Double?, next: String?, count: Int?, reason: String?

        init(tree text: String, _ redactor: Redactor) {
            let data = (try? JSONParser.parse(text)).map { redactor.redact($0) }
            var all = TimesketchUUIDField(), dropped = TimesketchUUIDField()
            if let uuid = data?["uuid"]?.stringValue { all.add(uuid) }
            for uuid in UploadTracker.strings(data?["uuids"]) {
                all.add(uuid)
                dropped.add(uuid)
            }
            (uuids, uuidCount, self.dropped, droppedCount) = (all.text, all.count, dropped.text, dropped.count)
            status = UploadTracker.int(data?["status"])
            success = data?["success"]?.boolValue ?? UploadTracker.int(data?["success"]).map { $0 != 0 }
            failures = UploadTracker.int(data?["failures"])
            delay = data?["delay_s"].flatMap(UploadTracker.double)
            next = data?["next_attempt_at"]?.stringValue
            count = UploadTracker.int(data?["count"])
            reason = data?["reason"]?.stringValue
        }

        init(_ f: TimesketchRowFields) {
            (uuids, uuidCount, dropped, droppedCount) = (f.uuids.text, f.uuids.count, f.dropped.text, f.dropped.count)
            (status, success, failures, delay, next, count, reason) = (f.status, f.success, f.failures, f.delay, f.nextAttemptAt, f.count, f.reason)
        }
    }

    static func fields(_ text: String, _ redactor: Redactor) -> TimesketchRowFields {
        var copy = text
        return copy.withUTF8 { TimesketchRowFields(data: $0, redactor: redactor) }
    }

    @Test func everyRowReadsAsTheRedactedTreeReadsIt() {
        var rng = SplitMix64(seed: 20261207)
        var (objects, rejected) = (0, 0)
        for round in 0..<20_000 {
            var text = TimesketchRowFieldsTests.object(&rng)
            if round % 5 == 4 { text = RedactedJSONTextTests.damaged(text, &rng) }
            if round % 17 == 0 { text = TimesketchRowFieldsTests.value(&rng, depth: 0) }
            if (try? JSONParser.parse(text))?.objectValue == nil { rejected += 1 } else { objects += 1 }
            for redactor in RedactedJSONTextTests.redactors() {
                let expected = Reading(tree: text, redactor)
                let read = Reading(TimesketchRowFieldsTests.fields(text, redactor))
                if read != expected {
                    Issue.record("\(text)\nbytes: \(read)\ntree:  \(expected)")
                    return
                }
            }
        }
        #expect(objects > 10_000 && rejected > 2_000)
    }

    /// A secret in a uuid or a reason is redacted; under --show-secrets it shows.
    @Test func stringsAreRedactedAsTheTreeRedactsThem() {
        let secret = RedactedJSONTextTests.secret
        let text = "{\"uuids\":[\"a\",\"\(secret)\"],\"reason\":\"key \(secret)\",\"accessToken\":\"\(secret)\"}"
        var learned = Redactor()
        learned.learn(secret: secret)
        let read = TimesketchRowFieldsTests.fields(text, learned)
        #expect(read.dropped.count == 2 && !read.dropped.text.contains(secret) && read.dropped.text.hasPrefix("a ‹redacted"))
        #expect(read.reason?.contains(secret) == false)
        let shown = TimesketchRowFieldsTests.fields(text, .disabled)
        #expect(shown.dropped.text == "a \(secret)" && shown.reason == "key \(secret)")
    }
}
