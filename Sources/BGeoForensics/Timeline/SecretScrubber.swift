import Foundation

/// Extra redaction for the free text a timeline shows (request URLs, response bodies): values
/// of sensitive query parameters (`?api_key=…`, `&access_token=…`) and of sensitive JSON keys
/// inside bodies are fingerprinted before the dump's `Redactor` scrubs known secrets, JWTs and
/// Bearer credentials. Results are cached: URLs repeat on every request row.
struct SecretScrubber {
    let redactor: Redactor
    private var cache: [String: String] = [:]

    init(redactor: Redactor) { self.redactor = redactor }

    /// Query parameter names that carry credentials even though `Redactor` would not call them
    /// sensitive on their own.
    static let extraNames: Set<String> = ["key", "sig", "auth", "jwt", "code", "access", "pass"]

    static func isSensitiveName(_ name: String) -> Bool {
        Redactor.isSensitiveKey(name) || extraNames.contains(name.lowercased())
    }

    /// A URL or any text with `name=value` pairs: sensitive values fingerprinted.
    mutating func scrub(url text: String) -> String {
        guard redactor.enabled else { return text }
        if let cached = cache[text] { return cached }
        let result = redactor.redact(text: SecretScrubber.scrubPairs(text))
        if cache.count > 1000 { cache.removeAll() }
        cache[text] = result
        return result
    }

    /// A response body, cached (bodies repeat: "ok", the same error JSON on every retry).
    mutating func scrub(cachedBody text: String) -> String {
        guard redactor.enabled else { return text }
        if let cached = cache[text] { return cached }
        let result = scrub(body: text)
        if cache.count > 1000 { cache.removeAll() }
        cache[text] = result
        return result
    }

    /// A response body: JSON is redacted structurally, anything else as text with pairs.
    func scrub(body text: String) -> String {
        guard redactor.enabled else { return text }
        if let value = try? JSONParser.parse(text), value.objectValue != nil || value.arrayValue != nil {
            return scrub(json: value).jsonText
        }
        return redactor.redact(text: SecretScrubber.scrubPairs(text))
    }

    /// JSON: sensitive keys fingerprinted, then sensitive `name=value` pairs inside strings.
    func scrub(json value: JSONValue) -> JSONValue {
        guard redactor.enabled else { return value }
        return SecretScrubber.mapStrings(redactor.redact(value))
    }

    private static func mapStrings(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let s): return .string(scrubPairs(s))
        case .array(let elements): return .array(elements.map(mapStrings))
        case .object(let object):
            var copy = JSONObject()
            for member in object { copy[member.key] = mapStrings(member.value) }
            return .object(copy)
        default: return value
        }
    }

    /// Replaces the value of every `name=value` pair, and every `"name": "value"` member of
    /// broken or truncated JSON, whose name is sensitive.
    static func scrubPairs(_ text: String) -> String {
        guard text.contains("=") || text.contains(":") else { return text }
        var out = ""
        var rest = Substring(text)
        while let sep = rest.firstIndex(where: { $0 == "=" || $0 == ":" }) {
            var before = rest[..<sep]
            let quoted = rest[sep] == ":" && before.last == "\""
            if quoted { before = before.dropLast() }
            let nameStart = before.lastIndex { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }
                .map { before.index(after: $0) } ?? before.startIndex
            let name = String(before[nameStart...])
            out += rest[...sep]
            rest = rest[rest.index(after: sep)...]
            guard !name.isEmpty, rest.first != "/", isSensitiveName(name) else { continue }
            if quoted {
                // `"name": "value"`: keep the spacing and quotes, replace what is inside.
                let spaces = rest.prefix { $0 == " " }
                out += spaces
                rest = rest.dropFirst(spaces.count)
                guard rest.first == "\"" else { continue }
                out += "\""
                rest = rest.dropFirst()
                let value = rest.prefix { $0 != "\"" }
                if value.count >= 4, !value.hasPrefix("‹redacted") {
                    out += Redactor.fingerprint(String(value))
                    rest = rest.dropFirst(value.count)
                }
                continue
            }
            let value = rest.prefix { !"&#; \"',}\n".contains($0) }
            if value.count >= 4, !value.hasPrefix("‹redacted") {
                out += Redactor.fingerprint(String(value))
                rest = rest.dropFirst(value.count)
            }
        }
        return out + rest
    }
}
