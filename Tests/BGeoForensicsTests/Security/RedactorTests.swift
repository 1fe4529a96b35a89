import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

@Suite struct RedactorTests {
    @Test func redactsSensitiveKeysStructurally() {
        let redactor = Redactor()
        let out = redactor.redact(Fixtures.config).jsonText
        #expect(!out.contains(Fixtures.accessToken))
        #expect(!out.contains(Fixtures.refreshToken))
        #expect(!out.contains(Fixtures.apiKey))
        #expect(out.contains("https://ingest.example/refresh"))
        #expect(out.contains(Redactor.fingerprint(Fixtures.apiKey)))
    }

    /// Regression (stop 47): the pair rules compare a name after Unicode lowercasing, but the
    /// filter that lets them run looked for the names' ASCII bytes only, so `toKen=…` written with
    /// U+212A KELVIN SIGN (which lowercases to "k") kept its value while `token=…` lost it.
    @Test func aPairNamedWithAKelvinSignIsScrubbed() {
        let redactor = Redactor()
        for text in ["retrying with to\u{212A}en=Zq9x-pair-value now", "api\u{212A}ey: Zq9x-pair-value", "token=Zq9x-pair-value"] {
            #expect(!redactor.redact(text: text).contains("Zq9x-pair-value"), "\(text)")
        }
        #expect(SecretRules.pairNameFilter.mayContainName("to\u{212A}en"))
        #expect(SecretRules.keyNameFilter.mayContainName("é"  + "x"))
        #expect(!SecretRules.keyNameFilter.mayContainName(#"{"success":false,"status":401}"#))
    }

    /// Regression (stop 56): the learned secrets were a `Set<String>`, whose `==` is canonical
    /// equivalence, so of one password spelled precomposed (U+00E4) and decomposed (`a` + U+0308)
    /// only the first was kept, and the search, which matches bytes, let the other through.
    @Test func twoSpellingsOfOneSecretAreBothRedacted() {
        let precomposed = "p\u{E4}ssw\u{F6}rd-1", decomposed = "pa\u{308}sswo\u{308}rd-1"
        #expect(precomposed == decomposed, "canonically equal")
        for order in [[precomposed, decomposed], [decomposed, precomposed]] {
            var redactor = Redactor()
            for secret in order { redactor.learn(secret: secret) }
            #expect(redactor.knownSecrets.count == 2)
            for secret in order {
                let out = redactor.redact(text: "login with " + secret + " failed")
                #expect(!out.utf8.elementsEqual("login with \(secret) failed".utf8), "\(Array(secret.utf8)) kept")
                #expect(out.contains(Redactor.fingerprint(secret)))
            }
        }
    }

    @Test func redactsKnownSecretsJWTsAndBearerInFreeText() {
        var redactor = Redactor()
        redactor.learnSecrets(in: Fixtures.config)
        let text = "key=\(Fixtures.apiKey) rt=\(Fixtures.refreshToken) Authorization: Bearer abcdef123456 jwt=eyJhbGciOiJub25lIn0.eyJleHAiOjF9.sig"
        let out = redactor.redact(text: text)
        #expect(!out.contains(Fixtures.apiKey))
        #expect(!out.contains(Fixtures.refreshToken))
        #expect(!out.contains("abcdef123456"))
        #expect(!out.contains("eyJhbGciOiJub25lIn0"))
    }

    /// Plain tokens (uuids, timestamps, numbers) skip the search only while no known secret could
    /// hide in one: a secret made of hex digits and dashes (an API key like "5930-4855-915f"), of
    /// a timestamp's bytes, or whose first 16 characters are such (found cut off) is still found.
    @Test func plainTokenShortcutKeepsLookalikeSecretsRedacted() {
        let uuid = "3c365801-5930-4855-915f-a2cbeaa71ff3"
        func leftAsIs(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { Redactor().leavesAsIs(plainToken: $0) }
        }
        for text in [uuid, uuid.uppercased(), "2026-03-01T06:00:05.000Z", "2026-03-01T06:00:05+02:00", "-52.2297182", "8.0"] {
            #expect(leftAsIs(text), "\(text)")
        }
        for text in ["3c365801 5930", "a@b.c", "https://h/x", "eyJhbGciOi", "Bearer 3c36", "walking", "2026-03-01t06", ""] {
            #expect(!leftAsIs(text), "\(text)")
        }
        #expect(Redactor.plainTokensSpellNoName)
        var plain = Redactor()
        plain.learn(secret: "sk_live_5930-4855")
        #expect(plain.redact(text: uuid) == uuid)
        var hex = plain
        hex.learn(secret: "5930-4855-915f")
        let out = hex.redact(text: uuid)
        #expect(!out.contains("5930-4855-915f"))
        #expect(out.contains(Redactor.fingerprint("5930-4855-915f")))
        var clock = plain
        clock.learn(secret: "06:00:05.000Z")
        #expect(!clock.redact(text: "2026-03-01T06:00:05.000Z").contains("06:00:05.000Z"))
        // Only its first 16 characters are a plain token's: found where a text stops, cut off.
        var cut = plain
        cut.learn(secret: "0123456789abcdef0123-not-plain")
        #expect(!cut.redact(text: "0123456789abcdef0123").contains("0123456789abcdef"))
        // Not a uuid: searched as before.
        #expect(!plain.redact(text: "id sk_live_5930-4855").contains("sk_live_5930-4855"))
    }

    @Test func templatesAndDisabledRedactorPassThrough() {
        let payload: JSONValue = ["refreshPayload": ["refresh_token": "{refreshToken}"]]
        #expect(Redactor().redact(payload) == payload)
        #expect(Redactor.disabled.redact(Fixtures.config) == Fixtures.config)
    }

    @Test func jwtExpiryIsDecoded() {
        #expect(JWT.expiry(Fixtures.accessToken) == 1_784_880_000)
        #expect(JWT.expiry("not-a-jwt") == nil)
    }

    // MARK: byte search

    @Test func byteSearchFindsNeedlesAnywhere() {
        #expect(Redactor.contains("abcdef", "abc"))
        #expect(Redactor.contains("abcdef", "def"))
        #expect(Redactor.contains("aaab", "aab"))
        #expect(Redactor.contains("x‹y›z", "‹y›"))
        #expect(!Redactor.contains("abcdef", "abd"))
        #expect(!Redactor.contains("abc", "abcd"))
        #expect(!Redactor.contains("", "a"))
    }

    @Test func bearerIsFoundInAnyLetterCase() {
        #expect(Redactor.containsBearer("Authorization: BeArEr abcdef123456"))
        #expect(Redactor.containsBearer("bearer x"))
        #expect(!Redactor.containsBearer("bearerx"))
        #expect(!Redactor.containsBearer("bear"))
        #expect(!Redactor().redact(text: "auth: BEARER abcdef123456").contains("abcdef123456"))
    }

    /// A secret that contains another is replaced whole, whatever order the set iterates in.
    @Test func longerSecretWinsOverOneItContains() {
        var redactor = Redactor()
        redactor.learn(secret: "token-123456")
        redactor.learn(secret: "token-123456-refresh")
        let out = redactor.redact(text: "rt=token-123456-refresh at=token-123456")
        #expect(out == "rt=\(Redactor.fingerprint("token-123456-refresh")) at=\(Redactor.fingerprint("token-123456"))")
        // Learned in the other order, with more secrets around: the same text.
        var reversed = Redactor()
        for secret in ["token-123456-refresh", "zz-other-secret", "token-123456", "aa-other-secret", "token-123456"] {
            reversed.learn(secret: secret)
        }
        #expect(reversed.redact(text: "rt=token-123456-refresh at=token-123456") == out)
    }
}

/// `isSensitiveKey`'s ASCII fast path decides exactly as lowercasing the key and searching would.
@Suite struct SensitiveKeyTests {
    static func reference(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return Redactor.sensitiveKeyFragments.contains { lowered.contains($0) }
    }

    @Test func namedKeys() {
        for key in ["accessToken", "ACCESS_TOKEN", "refresh-Token", "X-Api-Key", "apiKey", "Authorization", "X-AUTH-Id",
                    "Cookie", "clientSecret", "uuid", "timestamp", "coords", "", "t", "toke", "tokeN", "x-aut",
                    "api\u{212A}ey", "\u{212A}", "Tøken", "t\u{0130}ken", "сookie"] {
            #expect(Redactor.isSensitiveKey(key) == Self.reference(key), "\(key)")
        }
        #expect(Redactor.isSensitiveKey("api\u{212A}ey"), "KELVIN SIGN lowercases to k: apikey")
        #expect(!Redactor.isSensitiveKey("speed_accuracy"))
    }

    @Test func randomKeysFromTheFragmentsLetters() {
        var rng = SystemRandomNumberGenerator()
        let letters = Array("tokensecrpaswdiyu_-xhzcgvKTOEN\u{212A}é")
        for _ in 0..<20_000 {
            let key = String((0..<Int.random(in: 0...14, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
            #expect(Redactor.isSensitiveKey(key) == Self.reference(key), "\(key)")
        }
    }
}

/// The pair scrub's shortcut (`Redactor.hasSensitivePair`) may skip a text only when the scrub
/// itself would leave it as it is: checked on random ASCII texts made of names, separators,
/// quotes, escapes and blanks, sensitive names among them.
@Suite struct PairScrubShortcutTests {
    @Test func theShortcutSkipsOnlyTextsTheScrubLeavesAlone() {
        let parts = ["token", "Auth", "key", "https", "url", "x", "user_name", "api-key", "KEY", "sig", "a.b", "=", ":",
                     " ", "\t", "\"", "\\\"", "'", "/", "//", "&", ",", "{", "}", "abc123", "Bearer", "\n", "-", "_", "."]
        // Seeded, so a failure names a text that fails again.
        var rng = SplitMix64(seed: 2026_12_05)
        var skipped = 0, scrubbed = 0
        for _ in 0..<20_000 {
            let text = (0..<rng.int(1...12)).map { _ in parts[rng.int(0...(parts.count - 1))] }.joined()
            let full = Redactor.scrubPairsInFull(text)
            if Redactor.hasSensitivePair(text) == false {
                skipped += 1
                #expect(full == text, "the shortcut skipped \(String(reflecting: text)), which the scrub changes")
            } else if full != text {
                scrubbed += 1
            }
            #expect(Redactor.scrubPairs(text) == full)
        }
        #expect(skipped > 1000 && scrubbed > 300, "skipped \(skipped), scrubbed \(scrubbed)")
        #expect(Redactor.hasSensitivePair("https://auth.example.com/refresh") == false)
        #expect(Redactor.hasSensitivePair("auth=abc") == true)
        #expect(Redactor.hasSensitivePair("clé=1") == nil)
    }

    /// The scrub on an ASCII text's bytes (`scrubPairsInBytes`, stop 48) gives what the walk by
    /// characters gives, on random texts of pair names, separators, quotes, escapes, templates and
    /// values of every kind the rules tell apart; a CR LF (one character) or a non-ASCII byte
    /// leaves the text to the walk.
    @Test func theByteScrubEqualsTheCharacterWalk() {
        let parts = ["token", "access_token", "Authorization", "x-api-key", "sig", "password", "user", "url", "=", ":", " : ",
                     " ", "\t", "\"", "\\\"", "'", "\\", "/", "//", "&", "#", ";", ",", "}", "{", ")", "]", "<", ">", "\n", "\r",
                     "Bearer ", "Basic dXNlcjpwYXNz", "{refreshToken}", "abc", "expired", "sk_live_0123456789abcdef", "12",
                     "abcdefghijklmnopq", "-", "_", ".", "https://h.example/p?sig=", "\"token\": \""]
        var rng = SplitMix64(seed: 2026_12_07)
        var changed = 0
        for _ in 0..<40_000 {
            let text = (0..<rng.int(1...14)).map { _ in parts[rng.int(0...(parts.count - 1))] }.joined()
            let full = Redactor.scrubPairsInFull(text)
            let bytes = Redactor.scrubPairsInBytes(text)
            if text.utf8.contains(0x0D) && text.contains("\r\n") {
                #expect(bytes == nil, "\(String(reflecting: text)) holds a CR LF")
                continue
            }
            #expect(bytes == full, "\(String(reflecting: text))")
            if full != text { changed += 1 }
        }
        #expect(changed > 5_000, "only \(changed) texts scrubbed: the comparison would prove little")
        #expect(Redactor.scrubPairsInBytes("clé=abcdefgh") == nil)
        #expect(Redactor.scrubPairsInBytes("a\r\ntoken=abcdefgh") == nil)
        #expect(Redactor.scrubPairs("token=abcdefgh\r\nnext") == Redactor.scrubPairsInFull("token=abcdefgh\r\nnext"))
    }

    /// Regression (stop 51): the redacted copy collapsed a repeated name to its first place and
    /// last value, so `logs` listed `{"status":200,…}` for a response whose status the timeline and
    /// `json_extract` read as 500. It now keeps every member where it stands, each redacted.
    @Test func aRepeatedNameKeepsEveryValueWhereItStands() throws {
        let stored = #"{"status":500,"token":"tok_abcdefghijkl","status":200,"headers":{"Authorization":"Bearer x1","Authorization":"Bearer y2"}}"#
        let redacted = Redactor().redact(try JSONParser.parse(stored))
        let object = try #require(redacted.objectValue)
        #expect(object.keys == ["status", "token", "status", "headers"])
        #expect(object["status"] == .int(500))
        #expect(object.members[2].value == .int(200))
        #expect(object["token"]?.stringValue == Redactor.fingerprint("tok_abcdefghijkl"))
        let headers = try #require(object["headers"]?.objectValue)
        #expect(headers.keys == ["Authorization", "Authorization"])
        #expect(!redacted.jsonText.contains("x1") && !redacted.jsonText.contains("y2"))
    }
}

/// Regression (stop 52): a URL's password was redacted in its URL only; the same word elsewhere
/// (a response, an app line) was shown. Learned where a document states the URL, it is redacted
/// wherever it appears, in every form the search knows.
@Suite struct URLPasswordLearningTests {
    @Test func passwordsAreReadFromEveryURLsUserInfo() {
        #expect(URLReducer.passwords(in: "https://fleet:Wr0ngHorse42@track.example/x") == ["Wr0ngHorse42"])
        #expect(URLReducer.passwords(in: "a https:\\/\\/bob:pw-in-json@host\\/x and ftp://u:second-one@h") == ["pw-in-json", "second-one"])
        #expect(URLReducer.passwords(in: "https://user-only@host/x").isEmpty)
        #expect(URLReducer.passwords(in: "https://u:@host/x").isEmpty)
        #expect(URLReducer.passwords(in: "mail me: a@b.example, https://host/x").isEmpty)
    }

    @Test func aLearnedURLPasswordIsRedactedAsAWord() throws {
        var redactor = Redactor()
        redactor.learnSecrets(in: try JSONParser.parse(#"{"logUrl":"https://fleet:Wr0ngHorse42@track.example/logs","params":{"x":["https://a:short@h"]}}"#))
        #expect(redactor.knownSecrets.contains("Wr0ngHorse42"))
        #expect(!redactor.knownSecrets.contains("short"), "shorter than a secret is learned")
        let shown = redactor.redact(text: "retried with Wr0ngHorse42 again")
        #expect(!shown.contains("Wr0ngHorse42") && shown.contains("‹redacted sha256:"))
        #expect(SecretRules.mayStateSecrets(#"{"logUrl":"https://f:Wr0ngHorse42@t.example"}"#))
        #expect(!SecretRules.mayStateSecrets(#"{"status":200,"count":4}"#))
    }
}
