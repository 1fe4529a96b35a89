import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `LogSecrets` parses a secret row's data only when its bytes may state a secret
/// (`LogSecrets.mayStateSecrets`): what it learns must be what parsing every row learns.
@Suite struct LogSecretsFilterTests {
    /// What a parse of every row's data learns: the definition the filter must keep.
    static func reference(_ texts: [String]) -> Redactor {
        var redactor = Redactor()
        for text in texts { if let data = try? JSONParser.parse(text) { redactor.learnSecrets(in: data) } }
        return redactor
    }

    static func learned(_ texts: [String]) -> Redactor {
        var secrets = LogSecrets()
        for (i, text) in texts.enumerated() {
            secrets.see(LogEntry(rowId: Int64(i + 1), tsText: "", time: 0, level: 3, src: "native",
                                 event: i % 2 == 0 ? "auth.refresh.result" : "config", message: nil, dataText: text, uploaded: false))
        }
        return secrets.learned
    }

    static func mayState(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(LogSecrets.mayStateSecrets)
    }

    /// Keys that name a secret only once parsed and lowercased: a `\u` escape, U+212A KELVIN
    /// SIGN (lowercases to "k"), any letter case, a headers object whose members are secrets.
    @Test(arguments: [
        #"{"\u0074oken":"Zq9x-escaped-1"}"#,
        "{\"to\u{212A}en\":\"Zq9x-kelvin-2\"}",
        #"{"ACCESSTOKEN":"Zq9x-upper-3"}"#,
        #"{"refreshHeaders":{"X-Tenant":"Zq9x-tenant-4"}}"#,
        #"{"nested":[{"api-key":"Zq9x-nested-5"}]}"#,
        #"{"logUrl":"https://fleet:Zq9x-url-6@track.example/x"}"#,
        #"{"note":"see https:\/\/fleet:Zq9x-escaped-url-7@track.example\/x"}"#,
    ])
    func aSecretUnderAnyKeySpellingIsLearned(text: String) {
        #expect(Self.mayState(text))
        let learned = Self.learned([text])
        #expect(learned.knownSecrets.count == 1, "\(text)")
        #expect(learned.knownSecrets == Self.reference([text]).knownSecrets)
    }

    @Test func aFailedRefreshIsNotParsed() {
        #expect(!Self.mayState(#"{"success":false,"status":401}"#))
        #expect(!Self.mayState(#"{"url":"https://auth.example.com/refresh","status":400,"note":"retry"}"#))
        // An e-mail address is no URL with user-info: not parsed either.
        #expect(!Self.mayState(#"{"success":false,"status":401,"user":"driver@fleet.example"}"#))
    }

    /// Random documents from keys that do and do not name secrets: the filter's learning equals
    /// the parse of every row, and every document it passes over states nothing to learn.
    @Test(arguments: [1, 2, 3])
    func randomDocumentsLearnAsEveryRowParsed(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let keys = ["success", "status", "url", "note", "expires_in", "user-agent", "accessToken", "to\u{212A}en",
                    #"\u0074oken"#, "Authorization", "headers", "refreshHeaders", "apiKey", "x-Tenant", "séance", "kiosk"]
        func value(_ depth: Int) -> String {
            switch Int.random(in: 0..<(depth < 2 ? 5 : 3), using: &rng) {
            case 0: return "\"value-\(Int.random(in: 100_000...999_999, using: &rng))\""
            case 1: return String(Int.random(in: 0...600, using: &rng))
            case 2: return Bool.random(using: &rng) ? "true" : "null"
            case 3: return object(depth + 1)
            default: return "[" + value(depth + 1) + "," + value(depth + 1) + "]"
            }
        }
        func object(_ depth: Int) -> String {
            let members = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                "\"" + keys.randomElement(using: &rng)! + "\":" + value(depth)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
        let texts = (0..<400).map { _ in object(0) }
        let passedOver = texts.filter { !Self.mayState($0) }
        #expect(passedOver.count > 20, "some documents are passed over")
        #expect(Self.reference(passedOver).knownSecrets.isEmpty)
        let learned = Self.learned(texts), reference = Self.reference(texts)
        #expect(learned.knownSecrets == reference.knownSecrets)
        #expect(learned.secretsLongestFirst == reference.secretsLongestFirst)
    }

    /// The learning's own scan of a small log (one pass, from the rows' cells): the secrets of
    /// refreshes whose keys are spelled every way, none of a failed one, as the entries' parse.
    @Test func theOwnScanLearnsFromTheCells() throws {
        let folder = TestDirectory("log-secrets-filter")
        let path = folder.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        try w.insertRecord(Fixtures.record(1, timestamp: Timestamp.format(1_784_880_000)))
        let rows = [#"{"success":false,"status":401}"#, #"{"success":true,"\u0074oken":"Zq9x-escaped-refresh"}"#,
                    "{\"success\":true,\"to\u{212A}en\":\"Zq9x-kelvin-refresh\"}", #"{"success":true,"status":200}"#]
        for (i, data) in rows.enumerated() {
            _ = try w.insertLog(ts: Timestamp.format(1_784_880_000 + Double(i)), level: 3, event: "auth.refresh.result", data: data)
        }
        try w.commit()
        try w.close()
        let dump = try Dump(path: path)
        let redactor = dump.makeRedactor(enabled: true, inParts: false)
        #expect(redactor.knownSecrets == ["Zq9x-escaped-refresh", "Zq9x-kelvin-refresh"])
        #expect(redactor.knownSecrets == Self.reference(rows).knownSecrets)
        #expect(dump.warnings.all.isEmpty)
    }
}
