import BGeoForensics
/// The SDK's config keys and what each accepts, for checking what an operator passes with
/// `--set KEY=VALUE` and `--config FILE.json` before anything is sent: a wrong type, a value out
/// of range or a key the SDK does not have is refused with the key and what it takes, instead
/// of being read as a default (`maxBatchSize=abc` silently meant "unlimited").
/// The keys are those of the SDK guides and the dump format. A dump's own recorded config is
/// not checked here: it is evidence, and re-sync reads it as the engine did.
public enum SDKConfigSchema {
    /// What one key accepts. `null` is always accepted: it unsets the key (engine default).
    public enum Expectation: Sendable {
        case bool
        case integer(ClosedRange<Int>, extra: Int?, text: String)
        case number(ClosedRange<Double>, text: String)
        case string(nonEmpty: Bool)
        case choice([String])
        case httpURL
        /// Free-form object (`params`, `extras`, `refreshPayload`).
        case object
        /// Header name → string (numbers and booleans are sent as their text).
        case headers
        /// The `authorization` object with its own keys.
        case authorization
        /// `logLevel`: 0…5 or a level name.
        case logLevel
        /// `diagnosticExtras`: true/false or an object.
        case boolOrObject

        /// "takes …" in a message.
        var accepts: String {
            switch self {
            case .bool: return "true or false"
            case .integer(_, _, let text): return text
            case .number(_, let text): return text
            case .string(let nonEmpty): return nonEmpty ? "a non-empty string" : "a string"
            case .choice(let values): return "one of " + values.joined(separator: ", ")
            case .httpURL: return "an http:// or https:// URL"
            case .object: return "a JSON object"
            case .headers: return "a JSON object of header names to string values"
            case .authorization: return "a JSON object with " + SDKConfigSchema.authorizationKeys.map(\.key).joined(separator: ", ")
            case .logLevel: return "an integer 0…5 or one of off, error, warning, info, debug, verbose"
            case .boolOrObject: return "true, false or a JSON object"
            }
        }
    }

    static let nonNegativeInteger = Expectation.integer(0...Int.max, extra: nil, text: "an integer ≥ 0")
    static let nonNegativeNumber = Expectation.number(0...Double.greatestFiniteMagnitude, text: "a number ≥ 0")

    /// Every top-level key, in the SDK's spelling (matched case-insensitively, as the engine reads).
    public static let keys: [(key: String, expects: Expectation)] = [
        ("url", .httpURL), ("method", .choice(["POST", "PUT", "PATCH"])), ("headers", .headers),
        ("autoSync", .bool), ("batchSync", .bool),
        ("maxBatchSize", .integer(1...Int.max, extra: -1, text: "an integer ≥ 1, or -1 for unlimited")),
        ("autoSyncThreshold", nonNegativeInteger), ("httpRootProperty", .string(nonEmpty: true)),
        ("params", .object), ("extras", .object), ("disableAutoSyncOnCellular", .bool),
        ("httpTimeoutMs", .integer(1...3_600_000, extra: nil, text: "a whole number of milliseconds from 1 to 3600000")),
        ("authorization", .authorization), ("logUrl", .httpURL), ("logLevel", .logLevel), ("logMaxDays", nonNegativeInteger),
        ("locationFilterMaxAccuracy", nonNegativeNumber), ("locationFilterMaxSpeed", nonNegativeNumber),
        ("locationFilterPolicy", .choice(["Conservative", "Adjust", "PassThrough"])),
        ("kalmanProfile", .choice(["DEFAULT", "AGGRESSIVE", "CONSERVATIVE"])), ("disableLocationFilter", .bool),
        ("odometerAccuracyThreshold", nonNegativeNumber),
        ("maxRecordsToPersist", .integer(1...Int.max, extra: -1, text: "an integer ≥ 1, or -1 for unlimited")),
        ("maxDaysToPersist", nonNegativeInteger), ("heartbeatInterval", nonNegativeNumber), ("debug", .bool),
        ("diagnosticExtras", .boolOrObject),
    ]

    /// The keys of `authorization`.
    public static let authorizationKeys: [(key: String, expects: Expectation)] = [
        ("strategy", .string(nonEmpty: false)), ("accessToken", .string(nonEmpty: false)),
        ("refreshToken", .string(nonEmpty: false)), ("refreshUrl", .httpURL), ("refreshPayload", .object),
        ("refreshHeaders", .headers),
    ]

    /// Checks one `--set KEY=VALUE` (dotted path, value already parsed); `source` names the
    /// option in the message.
    public static func check(path: String, value: JSONValue, source: String) throws(ResyncSettings.Invalid) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw ResyncSettings.Invalid(description: "\(source): '\(path)' is not a key path (KEY or KEY.SUBKEY)")
        }
        try check(parts[...], value: value, in: keys, where: source, prefix: "")
    }

    /// Checks every key of a `--config FILE.json` object.
    public static func check(config object: JSONObject, file: String) throws(ResyncSettings.Invalid) {
        for member in object {
            try check([member.key], value: member.value, in: keys, where: "--config \(file)", prefix: "")
        }
    }

    private static func check(_ parts: ArraySlice<String>, value: JSONValue, in table: [(key: String, expects: Expectation)],
                              where source: String, prefix: String) throws(ResyncSettings.Invalid) {
        let head = parts.first!
        guard let entry = table.first(where: { $0.key.lowercased() == head.lowercased() }) else {
            let known = table.map(\.key)
            let hint = closest(head, among: known).map { " (did you mean \(prefix)\($0)?)" } ?? ""
            let scope = prefix.isEmpty ? "the SDK has no config key" : "\(prefix.dropLast()) has no key"
            throw ResyncSettings.Invalid(description: "\(source): \(scope) '\(prefix)\(head)'\(hint); "
                + "known keys: \(known.joined(separator: ", "))")
        }
        let name = prefix + entry.key
        let rest = parts.dropFirst()
        if !rest.isEmpty {
            switch entry.expects {
            case .object, .boolOrObject:
                return  // free-form inside
            case .headers:
                guard rest.count == 1 else {
                    throw ResyncSettings.Invalid(description: "\(source): \(name).\(rest.joined(separator: ".")): \(name) takes \(entry.expects.accepts)")
                }
                try checkHeaderValue(value, name: "\(name).\(rest.first!)", source: source)
                return
            case .authorization:
                try check(rest, value: value, in: authorizationKeys, where: source, prefix: name + ".")
                return
            default:
                throw ResyncSettings.Invalid(description: "\(source): \(name) is not an object, so '\(name).\(rest.joined(separator: "."))' "
                    + "does not exist; \(name) takes \(entry.expects.accepts)")
            }
        }
        if value == .null { return }
        if let problem = problem(value, entry.expects) {
            // A token or key given with the wrong type is still a secret: its value is not echoed.
            let shown = Redactor.isSensitiveKey(name) ? describeType(value) : describe(value)
            throw ResyncSettings.Invalid(description: "\(source): \(name) takes \(entry.expects.accepts), not \(shown)\(problem)")
        }
        switch (entry.expects, value) {
        case (.headers, .object(let object)):
            for member in object { try checkHeaderValue(member.value, name: "\(name).\(member.key)", source: source) }
        case (.authorization, .object(let object)):
            for member in object { try check([member.key], value: member.value, in: authorizationKeys, where: source, prefix: name + ".") }
        default:
            break
        }
    }

    private static func checkHeaderValue(_ value: JSONValue, name: String, source: String) throws(ResyncSettings.Invalid) {
        switch value {
        case .string, .int, .double, .bool, .null: return
        default:
            throw ResyncSettings.Invalid(description: "\(source): \(name) takes a string (a header value), not \(describeType(value))")
        }
    }

    /// Nil when `value` fits; otherwise extra words for the message ("" when the type says it all).
    static func problem(_ value: JSONValue, _ expects: Expectation) -> String? {
        switch expects {
        case .bool:
            return value.boolValue == nil ? "" : nil
        case .integer(let range, let extra, _):
            guard let number = integer(value) else { return "" }
            return range.contains(number) || number == extra ? nil : " (out of range)"
        case .number(let range, _):
            guard let number = value.doubleValue, number.isFinite else { return "" }
            return range.contains(number) ? nil : " (out of range)"
        case .string(let nonEmpty):
            guard let text = value.stringValue else { return "" }
            return nonEmpty && text.isEmpty ? " (empty)" : nil
        case .choice(let values):
            guard let text = value.stringValue else { return "" }
            return values.contains { $0.lowercased() == text.lowercased() } ? nil : ""
        case .httpURL:
            guard let text = value.stringValue else { return "" }
            return isHTTPURL(text) ? nil : ""
        case .object, .headers, .authorization:
            return value.objectValue == nil ? "" : nil
        case .logLevel:
            if let number = integer(value) { return (0...5).contains(number) ? nil : " (out of range)" }
            guard let text = value.stringValue else { return "" }
            return ["off", "error", "warning", "warn", "info", "debug", "verbose"].contains(text.lowercased()) ? nil : ""
        case .boolOrObject:
            return value.boolValue != nil || value.objectValue != nil ? nil : ""
        }
    }

    /// An integer value: JSON integers, and reals without a fraction (`1500.0`).
    static func integer(_ value: JSONValue) -> Int? {
        switch value {
        case .int(let i): return Int(exactly: i)
        case .double(let d): return d.isFinite && d.rounded() == d && abs(d) < 9e15 ? Int(d) : nil
        default: return nil
        }
    }

    /// `http://` / `https://` with a host.
    public static func isHTTPURL(_ text: String) -> Bool {
        HTTPClient.target(text) != nil
    }

    /// How a value reads in a message: `the string "abc"`, `the number -5`, `an object`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return "the string \(JSONValue.string(String(s.prefix(60))).jsonText)"
        case .int, .double: return "the number \(value.jsonText)"
        case .bool(let b): return "\(b)"
        case .object: return "an object"
        case .array: return "an array"
        case .null: return "null"
        }
    }

    /// A value's type only: `a string`, `a number`.
    static func describeType(_ value: JSONValue) -> String {
        switch value {
        case .string: return "a string"
        case .int, .double: return "a number"
        case .bool: return "a boolean"
        case .object: return "an object"
        case .array: return "an array"
        case .null: return "null"
        }
    }

    /// The known key nearest to a misspelt one (edit distance ≤ 2), for "did you mean".
    static func closest(_ word: String, among known: [String]) -> String? {
        let target = Array(word.lowercased())
        var best: (key: String, distance: Int)?
        for key in known {
            let candidate = Array(key.lowercased())
            var previous = Array(0...candidate.count)
            for (i, a) in target.enumerated() {
                var current = [i + 1]
                for (j, b) in candidate.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a == b ? 0 : 1)))
                }
                previous = current
            }
            let distance = previous[candidate.count]
            if distance <= 2, distance < (best?.distance ?? Int.max) { best = (key, distance) }
        }
        return best?.key
    }
}
