import BGeoReader
import Foundation

/// The timeline's redaction of free text it shows (request URLs, response bodies), cached: URLs
/// and bodies repeat on every request row ("ok", the same error JSON on every retry). The rules
/// are the dump's `Redactor`'s, the same as every output's; a body that is JSON is redacted
/// structurally first (sensitive keys, header values).
struct SecretScrubber {
    let redactor: Redactor
    /// By bytes (`ExactText`): the redaction is the byte search's, and a text spelled otherwise
    /// (canonically equal, as `String ==` finds it) may hold a secret its twin does not.
    private var cache: [ExactText: String] = [:]

    init(redactor: Redactor) { self.redactor = redactor }

    /// A URL or any text: redacted, cached.
    mutating func scrub(url text: String) -> String {
        let redactor = redactor
        return cached(text) { redactor.redact(text: $0) }
    }

    /// A response body, cached.
    mutating func scrub(cachedBody text: String) -> String {
        let plain = SecretScrubber(redactor: redactor)
        return cached(text) { plain.scrub(body: $0) }
    }

    private mutating func cached(_ text: String, _ make: (String) -> String) -> String {
        guard redactor.enabled else { return text }
        // The text asked for last is compared before the dictionary is asked: a URL or a body
        // repeats row after row, and comparing is cheaper than hashing it.
        let key = ExactText(text)
        if let last, last.text == key { return last.result }
        let result: String
        if let hit = cache[key] {
            result = hit
        } else {
            result = make(text)
            if cache.count > 1000 { cache.removeAll() }
            cache[key] = result
        }
        last = (key, result)
        return result
    }
    private var last: (text: ExactText, result: String)?

    /// A response body: JSON is redacted structurally, anything else as text.
    func scrub(body text: String) -> String {
        guard redactor.enabled else { return text }
        if let value = try? JSONParser.parse(text), value.objectValue != nil || value.arrayValue != nil {
            return scrub(json: value).jsonText
        }
        return redactor.redact(text: text)
    }

    /// JSON: sensitive keys and header values fingerprinted, every string redacted as text.
    func scrub(json value: JSONValue) -> JSONValue {
        guard redactor.enabled else { return value }
        return redactor.redact(value)
    }
}
