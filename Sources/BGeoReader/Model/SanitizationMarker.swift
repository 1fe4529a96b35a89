/// What `sanitize` leaves in the output's `state` under the key `sanitized`, so every later
/// command can say "this dump was sanitised" and how: when, with which options, what was changed
/// (counts), the original's SHA-256, and the facts about the tokens it replaced (length, JWT or
/// not, `exp`) — a fingerprint cannot be decoded, but "the access token had already expired" is
/// part of the diagnosis and must survive.
public struct SanitizationMarker: Sendable, Equatable {
    /// The whole stored object, as read.
    public let json: JSONObject

    /// The state key.
    public static let stateKey = "sanitized"

    public init?(_ value: JSONValue) {
        guard let object = value.objectValue, object["tool"] != nil else { return nil }
        json = object
    }

    init(object: JSONObject) { json = object }

    /// When the copy was made (ISO-8601).
    public var sanitizedAt: String? { json["sanitizedAt"]?.stringValue }

    /// "extras hash, urls host, coords shift".
    public var optionsText: String {
        guard let options = json["options"]?.objectValue else { return "options unknown" }
        return options.map { "\($0.key) \($0.value.stringValue ?? $0.value.jsonText)" }.joined(separator: ", ")
    }

    /// True when replay on this copy gives the original's decisions and odometers.
    public var replayIdentical: Bool? { json["coordinates"]?["replayIdentical"]?.boolValue }

    /// The one line every command prints about a sanitised dump.
    public var summary: String {
        var line = "this dump was sanitised"
        if let at = sanitizedAt { line += " on \(at)" }
        line += " (\(optionsText)): secrets are fingerprints"
        if let extras = json["options"]?["extras"]?.stringValue, extras != ExtrasPolicy.keep.rawValue {
            line += ", customer data \(extras == ExtrasPolicy.hash.rawValue ? "hashed" : "dropped")"
        }
        if let urls = json["options"]?["urls"]?.stringValue, urls == URLPolicy.host.rawValue { line += ", URLs cut to their host" }
        switch (json["coordinates"]?["mode"]?.stringValue, replayIdentical) {
        case ("shift"?, true?): line += ", positions moved (replay identical)"
        case ("shift"?, _): line += ", positions moved (replay identical up to rounding)"
        case ("coarsen"?, _): line += ", positions coarsened (replay results may differ from the original's)"
        default: break
        }
        if let sha = json["source"]?["sha256"]?.stringValue { line += "; original sha256 \(sha)" }
        return line
    }

    /// What the marker records about a token replaced by `placeholder` (a fingerprint as the
    /// redactor prints it).
    public func token(_ placeholder: String) -> TokenFingerprint? {
        guard let fingerprint = SanitizationMarker.fingerprint(inPlaceholder: placeholder),
              let facts = json["tokens"]?[fingerprint]?.objectValue else { return nil }
        return TokenFingerprint(fingerprint: fingerprint, length: facts["length"]?.intValue ?? 0,
                                isJWT: facts["jwt"]?.boolValue ?? false, expiresAt: facts["exp"]?.doubleValue,
                                invalidExpiry: facts["invalidExp"]?.doubleValue)
    }

    /// The JWT `exp` of the token a placeholder replaced, when it was a JWT with one.
    public func expiry(ofToken placeholder: String) -> Double? { token(placeholder)?.expiresAt }

    /// `sha256:1a2b3c4d` out of `‹redacted sha256:1a2b3c4d›`.
    static func fingerprint(inPlaceholder text: String) -> String? {
        let prefix = "‹redacted ", suffix = "›"
        guard text.hasPrefix(prefix), text.hasSuffix(suffix) else { return nil }
        let inner = text.dropFirst(prefix.count).dropLast(suffix.count)
        guard inner.hasPrefix("sha256:"), inner.count == "sha256:".count + 8 else { return nil }
        return String(inner)
    }

    /// The facts kept for one replaced token.
    package static func facts(of token: String) -> JSONValue {
        let fingerprint = TokenFingerprint(token)
        var object: JSONObject = ["length": .from(fingerprint.length), "jwt": .bool(fingerprint.isJWT)]
        if let exp = fingerprint.expiresAt { object["exp"] = .double(exp) }
        if let exp = fingerprint.invalidExpiry { object["invalidExp"] = .double(exp) }
        return .object(object)
    }
}
