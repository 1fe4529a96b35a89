import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The `stranded-refresh` sample with the dump's own secrets written in every form issue 23 found
/// leaking, each where the dump contract lets it stand: the refresh token JSON-escaped in a logged
/// refresh response (`1\/\/0g…`) and cut off inside a pretty-printed body truncated at 1,024
/// characters; `Authorization: Basic …` and `X-Api-Key: …` in log messages; `"access_token" : "…"`
/// with a space before the colon; a JSON-escaped URL with a password; the api key base64'd and
/// `\u005f`-escaped; URL user-info and `?token=…&sig=…` in the config's url; a header the old name
/// rules did not call sensitive (`X-Access-Key`); secret-named columns of an unknown table and a
/// JWT inside a BLOB; the url's password again as a plain word in an app line; passwords only a
/// request's and a refresh's URL state, repeated as words; one password in two header values,
/// spelled precomposed and decomposed (stop 56: a `Set<String>` kept one spelling, and the other
/// showed in every app line that repeats it). `leaks` lists what must never appear in any output,
/// in any of those forms.
enum SecretFormsDump {
    static let refresh = "1//0gPlantedRefreshTokenValue-abcdefghijkLMNOP"
    static let apiKey = "sk_live_plantedApiKey_0123456789abcdef"
    static let accessKeyHeader = "X-Access-Key-value-planted-777"
    static let urlPassword = "PASSWORDplanted99"
    static let queryToken = "querytokenplanted55"
    static let signature = "sigvalueplanted66"
    static let bodyAccess = "newaccess-planted-1234567890"
    static let prettyAccess = "another-access-planted-000"
    static let basicCredentials = "ZHJpdmVyOnBhc3N3b3JkMTIz"
    static let headerLineKey = "sk-live-headerline-0123456789"
    static let spacedAccess = "spaced-access-planted-42"
    static let escapedURLPassword = "pwplanted77"
    static let columnPassword = "hunter2-planted"
    static let columnApiKey = "apikey-col-planted-1"
    static let columnRefresh = "rt-col-planted-2"
    static let blobJWTSignature = "c2lnbmF0dXJlLXBsYW50ZWQ"
    static let requestURLPassword = "reqpwplanted88"
    static let refreshURLPassword = "refreshpwplanted89"
    static let twinPrecomposed = "p\u{E4}ssw\u{F6}rd-twin-planted"
    static let twinDecomposed = "pa\u{308}sswo\u{308}rd-twin-planted"

    static var escapedRefresh: String { refresh.replacingOccurrences(of: "/", with: "\\/") }
    static var base64APIKey: String { Data(("k=" + apiKey).utf8).base64EncodedString() }
    static var unicodeEscapedAPIKey: String { apiKey.replacingOccurrences(of: "_", with: "\\u005f") }

    /// Texts no output may hold: every secret, its JSON-escaped and `\u`-escaped forms, the
    /// base64 run only the key decides, and the first 20 characters of the cut-off token.
    static var leaks: [String] {
        [refresh, escapedRefresh, String(refresh.prefix(20)), apiKey, unicodeEscapedAPIKey,
         String(base64APIKey.dropFirst(4).prefix(24)), accessKeyHeader, urlPassword, queryToken, signature, bodyAccess,
         prettyAccess, basicCredentials, headerLineKey, spacedAccess, escapedURLPassword, requestURLPassword,
         refreshURLPassword, twinPrecomposed, twinDecomposed]
    }

    /// What `sanitize` must also remove (the unknown table's secret columns and BLOB).
    static var sanitizeLeaks: [String] { leaks + [columnPassword, columnApiKey, columnRefresh, blobJWTSignature] }

    static func write(to path: String) throws {
        try FileManager.default.copyItem(atPath: ReportE2E.packageRoot + "/Samples/stranded-refresh.db", toPath: path)
        let db = try Database(path: path, mode: .readWriteCreate)
        func state(_ key: String) throws -> JSONObject {
            let stmt = try db.prepare("SELECT value FROM state WHERE key = ?")
            try stmt.bind([.text(key)])
            _ = try stmt.step()
            return try JSONParser.parse(stmt.text(0) ?? "{}").objectValue ?? JSONObject()
        }
        func setState(_ key: String, _ value: JSONObject) throws {
            try db.prepare("UPDATE state SET value = ? WHERE key = ?").run([.text(JSONValue.object(value).jsonText), .text(key)])
        }
        var config = try state("config")
        config["url"] = .string("https://user:\(urlPassword)@track.example/api?token=\(queryToken)&sig=\(signature)")
        var headers = config["headers"]?.objectValue ?? JSONObject()
        headers["X-Api-Key"] = .string(apiKey)
        headers["X-Access-Key"] = .string(accessKeyHeader)
        headers["X-Tenant-Secret"] = .string(twinPrecomposed)
        headers["X-Tenant-Other"] = .string(twinDecomposed)
        config["headers"] = .object(headers)
        var authorization = config["authorization"]?.objectValue ?? JSONObject()
        authorization["refreshToken"] = .string(refresh)
        config["authorization"] = .object(authorization)
        try setState("config", config)
        var auth = try state("auth")
        auth["refreshToken"] = .string(refresh)
        try setState("auth", auth)

        // A refresh response as the SDK logs it (the body a JSON text in a string, `/` escaped).
        let body = "{\"access_token\":\"\(bodyAccess)\",\"refresh_token\":\"\(escapedRefresh)\"}"
        // A pretty-printed body cut at 1,024 characters, 25 characters into the refresh token.
        var pretty = "{\n  \"access_token\" : \"\(prettyAccess)\",\n  \"refresh_token\" : \"\(escapedRefresh)\"\n}"
        let start = pretty.range(of: escapedRefresh)!.lowerBound
        pretty = String(repeating: "x", count: 1024 - pretty.distance(from: pretty.startIndex, to: start) - 25) + pretty
        pretty = String(pretty.prefix(1024))
        let rows: [(event: String, message: String?, data: JSONValue?)] = [
            ("auth.refresh.result", nil, ["success": true, "status": 200, "response": .string(body)]),
            ("http.response", nil, ["status": 200, "count": 1, "ms": 5, "response": .string(pretty)]),
            ("app", "Authorization: Basic \(basicCredentials) sent", nil),
            ("app", "X-Api-Key: \(headerLineKey) header", nil),
            ("app", "login {\"access_token\" : \"\(spacedAccess)\"}", nil),
            ("app", "url https:\\/\\/bob:\(escapedURLPassword)@host.example\\/x", nil),
            ("app", "b64 " + base64APIKey, nil),
            ("app", "esc " + unicodeEscapedAPIKey, nil),
            // The config url's password as a plain word (stop 52: redacted in its URL only).
            ("app", "retried with \(urlPassword) again", nil),
            // Passwords only a request's and a refresh's URL state (stop 53: shown as words by
            // every command but sanitize), repeated as words in an app line.
            ("http.request", nil, ["url": .string("https://u:\(requestURLPassword)@track.example/api"), "method": "POST",
                                   "count": 1, "uuids": ["planted-uuid"], "bytes": 10, "attempt": 1]),
            ("auth.refresh", nil, ["url": .string("https://r:\(refreshURLPassword)@auth.example/token")]),
            ("app", "tried \(requestURLPassword) and \(refreshURLPassword)", nil),
            ("app", "tenant \(twinDecomposed) then \(twinPrecomposed)", ["note": .string(twinPrecomposed + " " + twinDecomposed)]),
        ]
        let insert = try db.prepare("INSERT INTO log_entries (ts, level, src, event, message, data) VALUES (?, 3, 'native', ?, ?, ?)")
        for (i, row) in rows.enumerated() {
            try insert.run([.text(Timestamp.format(Simulator.baseTime + 3 * 3600 + Double(i))), .text(row.event),
                            row.message.map { .text($0) } ?? .null, row.data.map { .text($0.jsonText) } ?? .null])
        }
        try db.execute("CREATE TABLE creds (id INTEGER PRIMARY KEY, password TEXT, api_key TEXT, refresh_token TEXT, payload BLOB)")
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.\(blobJWTSignature)"
        try db.prepare("INSERT INTO creds (password, api_key, refresh_token, payload) VALUES (?, ?, ?, ?)")
            .run(cells: [.text(columnPassword), .text(columnApiKey), .text(columnRefresh), .blob([0, 1] + Array(jwt.utf8) + [2])])
    }
}
