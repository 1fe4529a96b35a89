import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `RedactedJSONText` writes stored JSON redacted as it reads it; the tree path (parse, redact,
/// write) stays the definition. Random documents hold every case the redactor tells apart:
/// sensitive names over strings, arrays and objects, `…headers` objects with plain and secret
/// headers, templates, empty strings and fingerprints under sensitive names, known secrets, URL
/// passwords, JWTs and credential pairs in free text, escapes, whitespace, repeated names, and
/// texts the parser rejects.
@Suite struct RedactedJSONTextTests {
    static let secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    static let keys = ["uuid", "accessToken", "refresh_token", "Authorization", "headers", "httpHeaders", "Content-Type",
                       "X-Api-Key", "User-Agent", "password", "extras", "note", "url", "a", "st\\u0061tus", "API_KEY", "coords"]
    static let strings = ["", "a", "{accessToken}", "‹redacted sha256:1a2b3c4d›", secret, "x \(secret) y", "sk_live_4eC39HqLy",
                          "https://user:hunter2pass@example.com/x", "Bearer abcdef123456", "token=abc123def",
                          "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "é\\u0041\\n\\t\\\"", "\\u001b[31m",
                          "\\ud83d\\ude00", "<script>", "password: hunter2pass", "50%", "application/json"]
    static let numbers = ["0", "-0", "1.0", "12345678901234567890", "1e5", "-2.5E-3", "52.2297182", "007", "1e400"]

    static func randomJSON(_ rng: inout SplitMix64, depth: Int = 0) -> String {
        func space() -> String { rng.chance(0.15) ? [" ", "\n", "\t ", "\r\n"][rng.int(0...3)] : "" }
        let pick = depth > 4 ? rng.int(0...3) : rng.int(0...6)
        switch pick {
        case 0: return numbers[rng.int(0...(numbers.count - 1))]
        case 1: return "\"" + strings[rng.int(0...(strings.count - 1))] + "\""
        case 2: return ["true", "false", "null"][rng.int(0...2)]
        case 3: return "\"" + rng.uuid() + "\""
        case 4:
            let items = (0..<rng.int(0...4)).map { _ in space() + randomJSON(&rng, depth: depth + 1) + space() }
            return "[" + items.joined(separator: ",") + "]"
        default:
            let members = (0..<rng.int(0...5)).map { _ -> String in
                space() + "\"" + keys[rng.int(0...(keys.count - 1))] + "\"" + space() + ":" + space() + randomJSON(&rng, depth: depth + 1)
            }
            return "{" + members.joined(separator: ",") + space() + "}"
        }
    }

    /// A text the parser may reject: cut short, a byte changed, or trailing data.
    static func damaged(_ text: String, _ rng: inout SplitMix64) -> String {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return "x" }
        switch rng.int(0...2) {
        case 0: bytes.removeLast(rng.int(1...bytes.count))
        case 1: bytes[rng.int(0...(bytes.count - 1))] = [0x22, 0x2C, 0x5C, 0x7D, 0x01, 0xFF][rng.int(0...5)]
        default: bytes += Array(" x".utf8)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func redactors() -> [Redactor] {
        var learned = Redactor()
        learned.learn(secret: secret)
        learned.learn(secret: "hunter2pass")
        return [learned, Redactor(), .disabled]
    }

    /// The tree path's text, nil when the parser rejects it.
    static func tree(_ text: String, _ redactor: Redactor) -> String? {
        (try? JSONParser.parse(text)).map { redactor.redact($0).jsonText }
    }

    @Test func everyTextIsWrittenAsTheTreePathWritesIt() {
        var rng = SplitMix64(seed: 20261207)
        var (written, rejected, changed) = (0, 0, 0)
        for round in 0..<12_000 {
            var text = RedactedJSONTextTests.randomJSON(&rng)
            if round % 4 == 3 { text = RedactedJSONTextTests.damaged(text, &rng) }
            for redactor in RedactedJSONTextTests.redactors() {
                let expected = RedactedJSONTextTests.tree(text, redactor)
                let streamed = RedactedJSONText.text(text, redactor: redactor)
                #expect(streamed == expected, "\(text)")
                guard let expected else { rejected += 1; continue }
                written += 1
                if expected != RedactedJSONTextTests.tree(text, .disabled) { changed += 1 }
            }
        }
        // Each side exercised: texts written, texts the redaction changed, texts refused.
        #expect(written > 20_000 && rejected > 4_000 && changed > 2_500, "\(written) written, \(rejected) rejected, \(changed) changed")
    }

    /// Appending leaves what the buffer held before; a rejected text leaves the buffer as it was.
    @Test func appendingKeepsTheBufferAndUndoesARejectedText() {
        var rng = SplitMix64(seed: 20261208)
        for round in 0..<2_000 {
            var text = RedactedJSONTextTests.randomJSON(&rng)
            if round % 2 == 1 { text = RedactedJSONTextTests.damaged(text, &rng) }
            let redactor = RedactedJSONTextTests.redactors()[round % 3]
            var out = Array("{\"data\":".utf8)
            let before = out
            let appended = Array(text.utf8).withUnsafeBufferPointer { RedactedJSONText.append($0, redactor: redactor, to: &out) }
            let expected = RedactedJSONTextTests.tree(text, redactor)
            #expect(appended == (expected != nil), "\(text)")
            #expect(out == before + Array((expected ?? "").utf8), "\(text)")
        }
    }

    /// What a report row shows — the text and its readable form — is the tree's, cut anywhere:
    /// complete, or a prefix at least as long as asked for.
    @Test func theShownStartIsTheTreesStart() {
        var rng = SplitMix64(seed: 20261209)
        var cut = 0
        for round in 0..<6_000 {
            let text = RedactedJSONTextTests.randomJSON(&rng)
            let redactor = RedactedJSONTextTests.redactors()[round % 3]
            let limit = [1, 5, 20, 80, 1_000][round % 5]
            let tree = try? JSONParser.parse(text)
            let shown = RedactedJSONText.shown(text, redactor: redactor, bytes: limit)
            #expect((shown == nil) == (tree == nil), "\(text)")
            guard let tree, let shown else { continue }
            let redacted = redactor.redact(tree)
            for (part, whole, complete) in [(shown.json, redacted.jsonText, shown.jsonComplete),
                                            (shown.readable, ReportBuilder.readable(redacted), shown.readableComplete)] {
                if complete {
                    #expect(part == whole, "\(text) at \(limit)")
                } else {
                    cut += 1
                    #expect(Array(whole.utf8).starts(with: Array(part.utf8)) && part.utf8.count >= limit, "\(text) at \(limit): \(part)")
                }
            }
        }
        #expect(cut > 2_000)
    }

    /// The report's log cells read from the start are the cells the tree gives (the cut at 600
    /// and 240 characters), for rows of every size up to many times the start read.
    @Test func reportLogCellsMatchTheTreePath() {
        var rng = SplitMix64(seed: 20261210)
        for round in 0..<600 {
            let elements = (0..<[1, 40, 400, 3_000][round % 4]).map { _ in RedactedJSONTextTests.randomJSON(&rng, depth: 3) }
            var text = "{\"uuids\":[" + elements.joined(separator: ", ") + "],\"note\":\"é\(round)\"}"
            if round % 7 == 6 { text = RedactedJSONTextTests.damaged(text, &rng) }
            if round % 11 == 10 { text = "\"" + String(repeating: "e\\u0301", count: round) + "\"" }
            let entry = LogEntry(rowId: Int64(round), tsText: "2026-03-01T00:00:00Z", time: 0, level: 3, src: "native",
                                 event: "queue.drop", dataText: text)
            let redactor = RedactedJSONTextTests.redactors()[round % 3]
            let redacted = entry.data.map { redactor.redact($0) }
            let data = redacted?.jsonText ?? redactor.redact(text: text)
            let shown = ReportBuilder.shownData(entry, redactor: redactor)
            #expect(shown.cell == .string(ReportBuilder.truncate(data, 600)), "row \(round)")
            #expect(shown.words == ReportBuilder.truncate(redacted.map(ReportBuilder.readable) ?? data, 240), "row \(round)")
        }
    }

    /// Regression (stop 52): a listing's 60 MB `queue.drop` row was parsed into a tree and copied
    /// redacted (`logs` 470 MB, `report` 508 MB); read as it is written, a document of 200,000
    /// elements is rewritten without one — and as the tree writes it.
    @Test func aHugeDocumentIsRewrittenAsTheTreeWritesIt() {
        var rng = SplitMix64(seed: 20261211)
        let uuids = (0..<200_000).map { _ in "\"" + rng.uuid() + "\"" }
        let text = "{\"uuids\": [" + uuids.joined(separator: ", ") + "], \"accessToken\": \"\(RedactedJSONTextTests.secret)\"}"
        let redactor = RedactedJSONTextTests.redactors()[0]
        let streamed = RedactedJSONText.text(text, redactor: redactor)
        #expect(streamed == RedactedJSONTextTests.tree(text, redactor))
        #expect(streamed?.contains(RedactedJSONTextTests.secret) == false)
    }
}
