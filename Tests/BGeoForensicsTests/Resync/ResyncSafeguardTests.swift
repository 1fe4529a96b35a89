import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

/// The pure checks a run passes before anything is sent: settings against the SDK's keys,
/// headers that can go on the wire, endpoints named by the operator.
@Suite struct ResyncSafeguardTests {
    func refusal(_ body: () throws(ResyncSettings.Invalid) -> Void) -> String? {
        do { try body() } catch { return error.description }
        return nil
    }

    @Test func schemaAcceptsTheSDKsValuesAndNamesWhatItTakes() {
        let good: [(String, JSONValue)] = [
            ("maxBatchSize", 100), ("maxBatchSize", -1), ("MAXBATCHSIZE", 5), ("httpTimeoutMs", 2500.0), ("batchSync", false),
            ("method", "patch"), ("url", "https://h/x"), ("params", ["a": 1]), ("headers.X-Api-Key", "k"), ("headers", ["X-N": 5]),
            ("authorization.refreshPayload.rt", "{refreshToken}"), ("authorization", ["strategy": "JWT"]), ("logLevel", 5),
            ("logLevel", "debug"), ("diagnosticExtras", ["a": 1]), ("url", .null), ("extras.fleetId", ["any": [1]]),
        ]
        for (path, value) in good {
            #expect(refusal { () throws(ResyncSettings.Invalid) in try SDKConfigSchema.check(path: path, value: value, source: "--set") } == nil,
                    "\(path)=\(value.jsonText)")
        }
        let bad: [(String, JSONValue, String)] = [
            ("maxBatchSize", 0, "(out of range)"), ("maxBatchSize", 2.5, "an integer ≥ 1"), ("httpTimeoutMs", 0, "from 1 to 3600000"),
            ("batchSync", "true", "true or false, not the string \"true\""), ("method", "DELETE", "one of POST, PUT, PATCH"),
            ("url", "ftp://x/y", "an http:// or https:// URL"), ("logLevel", 9, "(out of range)"), ("headers", ["X": ["a"]], "headers.X"),
            ("locationFilterMaxSpeed", -1, "a number ≥ 0"), ("authorization.refreshToken", ["a": 1], "takes a string, not an object"),
            ("httpRootProperty", "", "(empty)"), ("url.path", "x", "url is not an object"), ("a..b", 1, "not a key path"),
        ]
        for (path, value, words) in bad {
            let message = refusal { () throws(ResyncSettings.Invalid) in try SDKConfigSchema.check(path: path, value: value, source: "--set") }
            #expect(message?.contains(words) == true, "\(path)=\(value.jsonText): \(message ?? "accepted")")
        }
        #expect(SDKConfigSchema.closest("batchsinc", among: SDKConfigSchema.keys.map(\.key)) == "batchSync")
        #expect(SDKConfigSchema.closest("zzzzzzzz", among: SDKConfigSchema.keys.map(\.key)) == nil)
    }

    @Test func headerProblemsNameTheHeaderAndTheCharacter() {
        #expect(HTTPHeader("X-Api-Key", "ak_1\tok").problem == nil)
        #expect(HTTPHeader("X-Api-Key", "żółw").problem == nil)
        #expect(HTTPHeader("X-Api-Key", "a\r\nX-B: c").problem?.contains("header 'X-Api-Key' has a value that contains a carriage return (CR)") == true)
        #expect(HTTPHeader("X", "a\nb").problem?.contains("line feed (LF)") == true)
        #expect(HTTPHeader("X", "a\u{0}b").problem?.contains("NUL") == true)
        #expect(HTTPHeader("X", "a\u{7F}").problem?.contains("U+007F") == true)
        #expect(HTTPHeader("X Y", "v").problem?.contains("contains a space") == true)
        #expect(HTTPHeader("X:Y", "v").problem?.contains("':'") == true)
        #expect(HTTPHeader("", "v").problem == "a header has an empty name")
    }

    func targets(_ recorded: JSONObject, named: JSONObject = [:], toRecorded: Bool = false, logLane: Bool = false) -> String {
        var config = SDKConfig(recorded)
        for member in named { config.set(path: member.key, to: member.value) }
        do {
            let settings = try ResyncSettings(config: config)
            let decided = try ResyncTargets.decide(settings: settings, named: SDKConfig(named), toRecorded: toRecorded, logLane: logLane)
            return ([decided.url] + [decided.refreshURL].compactMap { $0 } + decided.origins).joined(separator: " ")
        } catch {
            return "refused: \(error)"
        }
    }

    @Test func endpointsAreOnlyThoseTheOperatorNamed() {
        let recorded: JSONObject = ["url": "https://prod.example/locs", "logUrl": "https://prod.example/logs",
                                    "authorization": ["refreshUrl": "https://auth.example/refresh"]]
        #expect(targets(recorded).hasPrefix("refused: no --url given. The dump records url https://prod.example/locs"))
        #expect(targets(recorded, toRecorded: true)
                == "https://prod.example/locs https://auth.example/refresh https://prod.example:443 https://auth.example:443")
        #expect(targets(recorded, named: ["url": "http://127.0.0.1:9/x"]).hasPrefix("refused: the dump's authorization.refreshUrl is https://auth.example/refresh"))
        #expect(targets(recorded, named: ["url": "http://127.0.0.1:9/x", "authorization": ["refreshUrl": "http://127.0.0.1:9/r"]])
                == "http://127.0.0.1:9/x http://127.0.0.1:9/r http://127.0.0.1:9")
        #expect(targets(["authorization": ["refreshUrl": "https://h/refresh"]], named: ["url": "https://h/locs"])
                == "https://h/locs https://h/refresh https://h:443")  // same origin: no question
        #expect(targets(recorded, named: ["url": "https://h/locs", "authorization": ["refreshUrl": .null]]) == "https://h/locs https://h:443")
        #expect(targets(recorded, logLane: true).hasPrefix("refused: no --log-url given. The dump records logUrl https://prod.example/logs"))
        #expect(targets([:]).hasPrefix("refused: no endpoint: pass --url URL"))
    }

    @Test func clientTargetsAndRetryAfter() {
        #expect(HTTPClient.target("https://h:8443/p?q=1") == HTTPClient.Target(tls: true, host: "h", port: 8443, pathAndQuery: "/p?q=1",
                                                                                hostHeader: "h:8443"))
        #expect(HTTPClient.target("http://h:0/") == nil && HTTPClient.target("https:///x") == nil)
        #expect(RetryAfter.seconds(" 12 ") == 12 && RetryAfter.seconds("inf") == nil && RetryAfter.seconds("soon") == nil)
    }
}
