import Foundation
import Testing
@testable import BGeoSimulation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSanitize

@Suite struct SanitizePartsTests {
    // MARK: keyed hash

    @Test func keyedHashIsHMACSHA256() {
        // RFC 4231, test cases 1 and 2.
        #expect(KeyedHasher(key: [UInt8](repeating: 0x0b, count: 20)).hmacHex("Hi There")
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(KeyedHasher(key: Array("Jefe".utf8)).hmacHex("what do ya want for nothing?")
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// Regression (stop 56): the hasher's memory was keyed by `String`, whose `==` is canonical
    /// equivalence, so a value's hash depended on which spelling of it came first in the run: the
    /// decomposed `Kraków` took the precomposed one's hash after it, and its own before it.
    @Test func eachSpellingKeepsItsOwnHashWhateverCameFirst() {
        let precomposed = "Krak\u{F3}w", decomposed = "Krako\u{301}w"
        let key = Array("test-key".utf8)
        var first = KeyedHasher(key: key), second = KeyedHasher(key: key)
        let alone = (first.replacement(for: precomposed), second.replacement(for: decomposed))
        #expect(alone.0 != alone.1, "the hash is of the bytes")
        var hasher = KeyedHasher(key: key)
        #expect(hasher.replacement(for: precomposed) == alone.0)
        #expect(hasher.replacement(for: decomposed) == alone.1)
        #expect(hasher.replacement(for: precomposed) == alone.0)
    }

    @Test func keyedHashesAreStableWithinARunAndDifferAcrossRuns() {
        var a = KeyedHasher.random(), b = KeyedHasher.random()
        let first = a.replacement(for: "north-42")
        #expect(first == a.replacement(for: "north-42"))
        #expect(first != a.replacement(for: "north-43"))
        #expect(first != b.replacement(for: "north-42"), "a fresh key per run: hashes cannot be matched across copies")
        #expect(first.hasPrefix("‹hmac ") && first.count == "‹hmac ›".count + KeyedHasher.digits)
    }

    // MARK: URLs

    @Test func urlsKeepOnlyTheirHost() {
        #expect(URLReducer.apply("https://track.example.com/api/v2/locations?tenant=acme#x", policy: .host)
            == "https://track.example.com")
        #expect(URLReducer.apply("POST https://a.example:8443/p/q failed, retry http://b.example/x", policy: .host)
            == "POST https://a.example:8443 failed, retry http://b.example")
        #expect(URLReducer.apply("https://host.example", policy: .host) == "https://host.example")
        #expect(URLReducer.apply("no url here: a://", policy: .host) == "no url here: a://")
        #expect(URLReducer.apply("{\"url\":\"https://x.example/path\"}", policy: .host) == "{\"url\":\"https://x.example\"}")
    }

    @Test func credentialsInURLsAreRemovedEvenWhenURLsAreKept() {
        let kept = URLReducer.apply("https://driver:hunter2@api.example/v1?x=1", policy: .keep)
        #expect(kept == "https://\(Redactor.fingerprint("driver:hunter2"))@api.example/v1?x=1")
        #expect(URLReducer.apply("https://driver:hunter2@api.example/v1", policy: .host) == "https://api.example")
        #expect(URLReducer.apply("https://api.example/v1?x=1", policy: .keep) == "https://api.example/v1?x=1")
    }

    // MARK: secrets

    @Test func secretSearchFindsAnyOfManySecretsAnywhere() {
        let secrets = (0..<300).map { "tok-\($0)-\(String(repeating: "z", count: $0 % 7))" } + ["eyJhbGciOiJIUzI1NiJ9.x.y"]
        let matcher = SecretSearch(secrets: secrets)
        #expect(matcher.matches("prefix tok-17-zzz suffix"))
        #expect(matcher.matches("eyJhbGciOiJIUzI1NiJ9.x.y"))
        #expect(!matcher.matches("tok-17-zz"), "a prefix of a secret is not the secret")
        #expect(!matcher.matches("nothing secret in 2026-07-24T09:14:32.118Z"))
        let bytes = Array("aatok-5-zzzzzbbtok-6-bb".utf8)
        #expect(bytes.withUnsafeBytes { matcher.countMatches(in: $0) } == 1)
        #expect(SecretSearch(secrets: [String]()).isEmpty)
    }

    /// The sliding-window search must find exactly what looking at every position finds: the
    /// longest form starting there, whole or cut off, left to right, none overlapping.
    @Test func secretSearchFindsWhatEveryPositionFinds() {
        var rng = SplitMix64(seed: 41)
        let alphabet = Array("abcXYZ019-_./%+=\\\"".utf8)
        func word(_ length: Int) -> [UInt8] { (0..<length).map { _ in alphabet[rng.int(0...(alphabet.count - 1))] } }
        var differences = 0, hits = 0
        for round in 0..<400 {
            let secrets = (0..<rng.int(1...6)).map { _ in String(decoding: word(rng.int(4...40)), as: UTF8.self) }
            let search = SecretSearch(secrets: secrets)
            let forms = search.secrets.enumerated().flatMap { index, secret in
                SecretSearch.forms(of: Array(secret.utf8)).filter { $0.bytes.count >= 4 }.map { (form: $0.bytes, cut: $0.allowsCut, secret: index) }
            }
            for _ in 0..<20 {
                // Text made of noise and whole, cut and altered forms.
                var text: [UInt8] = []
                for _ in 0..<rng.int(0...8) {
                    text += word(rng.int(0...12))
                    guard let pick = forms.isEmpty ? nil : forms[rng.int(0...(forms.count - 1))] else { continue }
                    switch rng.int(0...3) {
                    case 0: text += pick.form
                    case 1: text += pick.form.prefix(rng.int(1...pick.form.count))
                    case 2: text += pick.form.prefix(rng.int(1...pick.form.count)) + [UInt8(ascii: " ")]
                    default:
                        var altered = pick.form
                        altered[rng.int(0...(altered.count - 1))] = UInt8(ascii: "#")
                        text += altered
                    }
                }
                var found: [SecretSearch.Hit] = []
                text.withUnsafeBufferPointer { search.forEachHit(in: $0) { found.append($0) } }
                // Every position, every form.
                var expected: [SecretSearch.Hit] = []
                var i = 0
                while i + 4 <= text.count {
                    var best: SecretSearch.Hit?
                    for candidate in forms {
                        var n = 0
                        while n < candidate.form.count, i + n < text.count, text[i + n] == candidate.form[n] { n += 1 }
                        let whole = n == candidate.form.count
                        let cut = !whole && candidate.cut && n >= SecretSearch.cutPrefix
                            && (i + n == text.count || !SecretSearch.isAlphanumeric(text[i + n]))
                        guard n >= 4, whole || cut, n > (best.map { $0.end - $0.start } ?? 0) else { continue }
                        best = SecretSearch.Hit(start: i, end: i + n, secret: candidate.secret)
                    }
                    if let best { expected.append(best); i = best.end } else { i += 1 }
                }
                hits += expected.count
                if found.map({ [$0.start, $0.end] }) != expected.map({ [$0.start, $0.end] }) { differences += 1 }
            }
            _ = round
        }
        #expect(hits > 2000)
        #expect(differences == 0)
    }

    @Test func textSanitizerScrubsLearnedSecretsPairsAndURLs() {
        var redactor = Redactor()
        redactor.learn(secret: "ak_live_93be11f04c")
        let text = TextSanitizer(redactor: redactor, urls: .host)
        var changes = CellChanges()
        let out = text.scrub("GET https://api.example/v1/acme?api_key=zz9988 used ak_live_93be11f04c", &changes)
        #expect(!out.contains("ak_live_93be11f04c") && !out.contains("zz9988") && !out.contains("/v1/acme"))
        #expect(out.contains(Redactor.fingerprint("ak_live_93be11f04c")))
        #expect(changes.contains(.secrets) && changes.contains(.urls))
        var none = CellChanges()
        #expect(text.scrub("2026-07-24T09:14:32.118Z", &none) == "2026-07-24T09:14:32.118Z")
        #expect(none.isEmpty)
    }

    @Test func sensitiveNameFilterIsASupersetOfTheRedactorsNames() {
        let filter = SensitiveNameFilter(Redactor.sensitiveKeyFragments + SecretRules.credentialPairNames)
        for name in ["Authorization", "X-API-KEY", "refresh_token", "sig", "Pass", "client_secret", "JWT"] {
            #expect(filter.mayContainName("\(name)=abcdef"), "\(name)")
        }
        #expect(!filter.mayContainName("2026-07-24T09:14:32.118Z"))
    }

    /// The filter answers exactly "does some fragment occur, in any letter case?": 20,000 seeded
    /// texts dense in fragment letters, checked against a plain search.
    @Test func sensitiveNameFilterAnswersAsAPlainSearch() {
        let names = Redactor.sensitiveKeyFragments + SecretRules.credentialPairNames + ["headers", "eyj", "bearer", "\\u"]
        let filter = SensitiveNameFilter(names)
        let fragments = Set(names.map { $0.lowercased() }).filter { $0.utf8.count >= 2 }
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 33
        }
        // Pieces: whole names (upper-cased at random), their halves (a near miss), single bytes.
        var pieces = names.flatMap { [$0, $0.uppercased(), String($0.prefix($0.count / 2)), String($0.suffix($0.count - $0.count / 2))] }
        pieces += "tk_-xX:=\" {}09\\".map { String($0) }
        var found = 0
        for _ in 0..<20_000 {
            let text = (0..<Int(next() % 8)).map { _ in pieces[Int(next() % UInt64(pieces.count))] }.joined()
            let expected = fragments.contains { text.lowercased().contains($0) }
            if expected { found += 1 }
            #expect(filter.mayContainName(text) == expected, "\(text)")
        }
        #expect(found > 1_000 && found < 19_000, "the texts exercise both answers: \(found)")
    }

    // MARK: JSON

    static func sanitizer(extras: ExtrasPolicy = .hash, urls: URLPolicy = .host,
                          coordinates: CoordinateTransform = .keep, secrets: [String] = []) -> JSONSanitizer {
        var redactor = Redactor()
        for secret in secrets { redactor.learn(secret: secret) }
        return JSONSanitizer(text: TextSanitizer(redactor: redactor, urls: urls), extras: extras, coordinates: coordinates,
                             hasher: KeyedHasher(key: Array("test-key".utf8)))
    }

    @Test func configSecretsHeadersAndCustomerDataAreReplaced() throws {
        let json = Self.sanitizer()
        var changes = CellChanges()
        let out = json.sanitize(Fixtures.config, &changes)
        let text = out.jsonText
        for secret in [Fixtures.accessToken, Fixtures.refreshToken, Fixtures.apiKey] { #expect(!text.contains(secret)) }
        #expect(out["authorization"]?["accessToken"]?.stringValue == Redactor.fingerprint(Fixtures.accessToken))
        #expect(out["headers"]?["X-Api-Key"]?.stringValue == Redactor.fingerprint(Fixtures.apiKey))
        #expect(out["url"]?.stringValue == "https://ingest.example")
        #expect(out["maxBatchSize"] == 50 && out["batchSync"] == true, "settings the diagnosis needs are kept")
        #expect(changes.contains(.secrets) && changes.contains(.urls))
        let headers: JSONValue = ["headers": ["Content-Type": "application/json", "X-Tenant": "acme-corp"]]
        let cleaned = json.sanitize(headers, &changes)
        #expect(cleaned["headers"]?["Content-Type"] == "application/json")
        #expect(cleaned["headers"]?["X-Tenant"]?.stringValue == Redactor.fingerprint("acme-corp"))
    }

    @Test(arguments: ExtrasPolicy.allCases)
    func extrasFollowThePolicy(policy: ExtrasPolicy) {
        let json = Self.sanitizer(extras: policy, secrets: ["learned-secret-1"])
        let record: JSONValue = ["uuid": "u-1", "extras": ["customer": "Jane Doe", "order": 1042, "nested": ["note": "learned-secret-1"],
                                                            "apiToken": "unlearned-token-9"]]
        var changes = CellChanges()
        let out = json.sanitize(record, &changes)
        let text = out.jsonText
        #expect(!text.contains("learned-secret-1") && !text.contains("unlearned-token-9"))
        if policy != .drop { #expect(out["extras"]?["apiToken"]?.stringValue == Redactor.fingerprint("unlearned-token-9")) }
        switch policy {
        case .keep:
            #expect(out["extras"]?["customer"] == "Jane Doe")
            #expect(out["extras"]?["nested"]?["note"]?.stringValue == Redactor.fingerprint("learned-secret-1"))
        case .hash:
            #expect(out["extras"]?.objectValue?.keys == ["customer", "order", "nested", "apiToken"], "keys kept")
            #expect(out["extras"]?["customer"]?.stringValue?.hasPrefix("‹hmac ") == true)
            #expect(out["extras"]?["order"]?.stringValue?.hasPrefix("‹hmac ") == true)
            #expect(out["extras"]?["nested"]?["note"]?.stringValue == Redactor.fingerprint("learned-secret-1"),
                    "a learned secret keeps its fingerprint, so two places still compare")
            #expect(changes.contains(.extras))
        case .drop:
            #expect(out["extras"] == .object(JSONObject()))
            #expect(!text.contains("Jane Doe"))
        }
        #expect(out["uuid"] == "u-1")
    }

    @Test func responseBodiesHoldingJSONAreSanitisedAsJSON() {
        let json = Self.sanitizer(secrets: ["echoed-secret-77"])
        let data: JSONValue = ["status": 401, "response": "{\"access_token\":\"fresh-token-123456\",\"echo\":\"echoed-secret-77\"}"]
        var changes = CellChanges()
        let out = json.sanitize(data, &changes)
        let body = out["response"]?.stringValue ?? ""
        #expect(!body.contains("fresh-token-123456") && !body.contains("echoed-secret-77"))
        #expect(body.contains(Redactor.fingerprint("fresh-token-123456")))
        #expect(out["status"] == 401)
    }

    @Test func positionsMoveWhereverTheyAreNamedAndNothingElseDoes() {
        let shift = CoordinateTransform(kind: .shift(halfTurn: true, delta: 2, exact: true))
        let json = Self.sanitizer(coordinates: shift)
        let line: JSONValue = ["latitude": 52.0, "longitude": 21.0, "raw_latitude": 52.5, "raw_longitude": 21.5,
                               "heading": 90.0, "accuracy": 5.0, "odometer": 120.0, "speed": 3.0]
        var changes = CellChanges()
        let out = json.sanitize(line, &changes)
        #expect(out["latitude"] == -52.0 && out["longitude"] == -19.0)
        #expect(out["raw_latitude"] == -52.5 && out["raw_longitude"] == -19.5)
        #expect(out["heading"] == 270.0)
        #expect(out["accuracy"] == 5.0 && out["odometer"] == 120.0 && out["speed"] == 3.0)
        #expect(changes.contains(.coordinates))
        let outOfRange: JSONValue = ["coords": ["latitude": 123.4567, "longitude": 21.0]]
        #expect(json.sanitize(outOfRange, &changes)["coords"]?["latitude"] == 123.4567, "not a position: left for the reader to warn about")
    }

    @Test func measuringVisitsExactlyThePositionsThatMove() {
        let measurer = Self.sanitizer(extras: .hash)
        measurer.measure(["coords": ["latitude": 52.0, "longitude": 21.25], "extras": ["lng": 0.001]])
        #expect(measurer.extent.count == 1 && measurer.extent.minLongitude == 21.25, "hashed extras are not positions")
        let keeping = Self.sanitizer(extras: .keep)
        keeping.measure(["coords": ["latitude": 52.0, "longitude": 21.25], "extras": ["lng": 0.001]])
        #expect(keeping.extent.count == 2)
    }

    @Test func fingerprintsAreNeverFingerprintedAgain() {
        let placeholder = Redactor.fingerprint("some-token-123456")
        #expect(Redactor.isFingerprint(placeholder))
        #expect(Redactor().redact(["accessToken": .string(placeholder)])["accessToken"]?.stringValue == placeholder)
        var redactor = Redactor()
        redactor.learn(secret: placeholder)
        #expect(redactor.knownSecrets.isEmpty)
        let marker = SanitizationMarker(["tool": "x", "tokens": ["sha256:" + String(SHA256Hasher.hex(of: "some-token-123456").prefix(8)): [
            "length": 17, "jwt": true, "exp": 1_785_000_000.0]]])
        #expect(marker?.expiry(ofToken: placeholder) == 1_785_000_000)
        #expect(marker?.token(placeholder)?.fingerprint == TokenFingerprint("some-token-123456").fingerprint)
    }
}
