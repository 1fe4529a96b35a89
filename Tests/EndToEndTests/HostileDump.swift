import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// A dump with secrets planted in every place the dump contract allows — config, auth, config
/// log lines, http.request headers, http.response bodies, auth.refresh results, extras, params,
/// app log lines, geofence identifiers, URL user-info and query strings, free-text messages, an
/// unknown table (text and blob) — and written the hostile ways: `\/` escapes and `\u` escaped
/// keys, so that a search of the raw input would not even find them. Customer data and the
/// customer's URL paths are planted too.
enum HostileDump {
    static let jwtAccess: String = {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        return b64("{\"alg\":\"HS256\",\"typ\":\"JWT\"}") + "." + b64("{\"sub\":\"driver-7\",\"exp\":1785000000}")
            + ".PlantedSignatureValue_abc123"
    }()

    static let refresh = "planted-refresh-token-7f3a9c2e51"
    static let apiKey = "sk_live_planted_0123456789abcdef"
    static let bearer = "planted-bearer-credential-555"
    static let tenantHeader = "tenant-acme-planted-header"
    static let rotatedAccess = "rotated-access-token-planted-99"
    static let rotatedRefresh = "rotated-refresh-token-planted-98"
    static let oldConfigToken = "old-config-line-token-planted-11"
    static let oldApiKey = "old-api-key-planted-22"
    static let requestHeaderToken = "request-header-token-planted-33"
    static let responseToken = "response-body-token-planted-44"
    static let refreshResultToken = "refresh-result-token-planted-55"
    static let urlPassword = "url-password-planted-66"
    static let queryKey = "query-key-planted-77"
    static let extrasToken = "extras-token-planted-88"
    static let paramsSecret = "params-secret-planted-99"
    static let appToken = "app-token-planted-101"
    static let slashSecret = "slash/secret/planted-202"
    static let unicodeKeyToken = "unicode-key-token-planted-303"
    static let messageQueryToken = "msg-query-token-planted-404"
    static let messageBearer = "msg-bearer-planted-505"

    /// Every planted secret: none may appear in a sanitised copy's bytes.
    static let secrets = [jwtAccess, refresh, apiKey, bearer, tenantHeader, rotatedAccess, rotatedRefresh, oldConfigToken,
                          oldApiKey, requestHeaderToken, responseToken, refreshResultToken, urlPassword, queryKey, extrasToken,
                          paramsSecret, appToken, slashSecret, unicodeKeyToken, messageQueryToken, messageBearer]
    /// Customer data: gone with the default `--extras hash`.
    static let customerValues = ["Jane Planted-Doe", "order-planted-4711", "shift note planted"]
    /// The customer's URL path: gone with the default `--urls host`.
    static let urlPath = "/v1/tenant-path-planted"

    static let start = 1_785_000_000.0

    /// Writes the dump; LongPing has only a queue, so only records carry plants there.
    static func write(to path: String, layout: DumpWriter.Layout = .current) throws {
        let w = try DumpWriter(path: path, layout: layout)
        try w.begin()
        func ts(_ s: Double) -> String { Timestamp.format(start + s) }
        let url = "https://driver:\(urlPassword)@api.hostile.example\(urlPath)/locations?api_key=\(queryKey)&v=2"
        let config: JSONValue = [
            "url": .string(url), "method": "POST", "batchSync": false,
            "headers": ["Authorization": .string("Bearer \(bearer)"), "X-Api-Key": .string(apiKey), "X-Tenant": .string(tenantHeader),
                        "Content-Type": "application/json"],
            "params": ["deviceId": "dev-planted-1", "clientSecret": .string(paramsSecret)],
            "extras": ["customer": .string(customerValues[0])],
            "authorization": ["strategy": "JWT", "accessToken": .string(jwtAccess), "refreshToken": .string(refresh),
                              "refreshUrl": "https://api.hostile.example/auth/refresh",
                              "refreshHeaders": ["X-Api-Key": .string(apiKey)], "refreshPayload": ["refresh_token": "{refreshToken}"]],
            "locationFilterPolicy": "Conservative", "logLevel": 5,
        ]
        var longitude = 21.0122
        for i in 0..<40 {
            longitude += 0.0004
            var record: JSONObject = [
                "uuid": .string(String(format: "00000000-0000-4000-8000-%012x", i)), "timestamp": .string(ts(Double(i) * 10)),
                "odometer": .double(Double(i) * 30),
                "coords": ["latitude": .double(52.2297 + Double(i) * 0.0001), "longitude": .double(longitude), "accuracy": 6.0,
                           "speed": 3.0, "heading": 45.0],
                "is_moving": true,
                "extras": ["customer": .string(customerValues[0]), "order": .string(customerValues[1]),
                           "apiToken": .string(extrasToken), "echo": .string(apiKey)],
            ]
            if i % 10 == 9 {
                record["event"] = "geofence"
                record["geofence"] = ["identifier": .string(i == 19 ? apiKey : "depot \(refresh)"), "action": "ENTER"]
            }
            try w.insertRecord(.object(record), attempts: i % 3)
        }
        guard case .current = layout else {
            if case .legacy(let withState) = layout, withState {
                try w.setState("config", config)
                try w.insertLog(ts: ts(-5), level: 3, event: "config", data: config)
            }
            try w.close()
            return
        }
        try w.setState("config", config)
        try w.setState("auth", ["accessToken": .string(rotatedAccess), "refreshToken": .string(rotatedRefresh)])
        try w.setState("http.failures", 3)
        try w.insertLog(ts: ts(-9), level: 3, event: "session.start", data: ["reason": "launch"])
        var oldConfig = config.objectValue!
        oldConfig["authorization"] = ["strategy": "JWT", "accessToken": .string(oldConfigToken), "refreshToken": .string(refresh)]
        oldConfig["headers"] = ["X-Api-Key": .string(oldApiKey)]
        oldConfig["password"] = .string(slashSecret)
        try w.insertLog(ts: ts(-8), level: 3, event: "config", data: .object(oldConfig))
        try w.insertLog(ts: ts(-7), level: 3, event: "config", data: config)
        try w.insertLog(ts: ts(-6), level: 3, src: "js", event: "app", message: "user pasted \(rotatedAccess) — \(customerValues[2])",
                        data: ["token": .string(appToken), "note": .string(apiKey), "order": .string(customerValues[1])])
        for i in 0..<3 {
            try w.insertLog(ts: ts(Double(400 + i * 20)), level: 3, event: "http.request",
                            data: ["url": .string(url), "method": "POST", "count": 40, "uuids": [], "bytes": 9000, "attempt": .int(Int64(i + 1)),
                                   "headers": ["Authorization": .string("Bearer \(requestHeaderToken)")]])
            try w.insertLog(ts: ts(Double(401 + i * 20)), level: 3, event: "http.response",
                            data: ["status": 401, "count": 40, "ms": 120,
                                   "response": .string("{\"error\":\"invalid_token\",\"access_token\":\"\(responseToken)\",\"echo\":\"\(rotatedAccess)\"}")])
            try w.insertLog(ts: ts(Double(402 + i * 20)), level: 3, event: "auth.refresh", data: ["url": "https://api.hostile.example/auth/refresh"])
            try w.insertLog(ts: ts(Double(403 + i * 20)), level: 1, event: "auth.refresh.result",
                            data: ["success": false, "status": 400, "accessToken": .string(refreshResultToken)])
            try w.insertLog(ts: ts(Double(404 + i * 20)), level: 3, event: "http.backoff",
                            data: ["failures": .int(Int64(i + 1)), "delay_s": .double(5 * pow(2, Double(i))), "next_attempt_at": .string(ts(Double(405 + i * 20)))])
        }
        // Written by hand: `\/` escapes hide the secret from a raw search of the input, `\u0074oken` hides the key.
        try w.insertLog(ts: ts(470), level: 3, event: "http.response",
                        data: "{\"status\":500,\"count\":1,\"ms\":9,\"response\":\"echo " + slashSecret.replacingOccurrences(of: "/", with: "\\/") + "\"}")
        try w.insertLog(ts: ts(471), level: 4, event: "heartbeat", data: "{\"\\u0074oken\":\"\(unicodeKeyToken)\"}")
        try w.insertLog(ts: ts(472), level: 2, event: "http.error",
                        message: "POST https://api.hostile.example\(urlPath)?access_token=\(messageQueryToken) failed with Authorization: Bearer \(messageBearer)")
        try w.insertLog(ts: ts(473), level: 3, event: "geofence", message: "ENTER \(apiKey)",
                        data: ["uuid": "g-1", "timestamp": .string(ts(473)), "coords": ["latitude": 52.23, "longitude": 21.02],
                               "geofence": ["identifier": .string(apiKey), "action": "ENTER"], "extras": ["customer": .string(customerValues[0])]])
        try w.database.execute("CREATE TABLE custom_notes (id INTEGER PRIMARY KEY, note TEXT, payload BLOB)")
        let insert = try w.database.prepare("INSERT INTO custom_notes (note, payload) VALUES (?, ?)")
        try insert.run(cells: [.text("support pasted \(rotatedAccess) here"), .blob(Array("blob:\(refresh):end".utf8))])
        try w.close()
    }
}
