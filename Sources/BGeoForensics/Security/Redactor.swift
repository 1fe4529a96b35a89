import Foundation

/// Keeps secrets out of every output. Two layers:
/// 1. structural: in JSON, string values under sensitive keys (tokens, secrets, passwords, api
///    keys, Authorization headers) are replaced by a fingerprint;
/// 2. textual: every secret value the dump is known to hold (collected from `state` and `config`
///    log lines), and anything shaped like a JWT or a `Bearer` credential, is replaced wherever it
///    appears in free text (messages, responses, URLs).
/// A fingerprint (`‹redacted sha256:1a2b3c4d›`) lets two places be compared without revealing either.
public struct Redactor: Sendable {
    /// When false, nothing is redacted (the user passed `--show-secrets`).
    public var enabled: Bool
    private(set) var knownSecrets: Set<String> = []
    /// The known secrets, longest first (then by text): a secret that contains another is
    /// replaced whole, the same way in every run, and a text is only searched for secrets that
    /// fit in it. Kept in order as secrets are learned (`remember`).
    private var secretsLongestFirst: [String] = []
    /// True when a known secret is made only of hex digits and dashes, so it could be part of a
    /// uuid's text: then uuids are searched like any text (see `redact(text:)`).
    private var secretLooksLikeUUIDText = false

    public init(enabled: Bool = true) { self.enabled = enabled }

    /// A redactor that never redacts.
    public static let disabled = Redactor(enabled: false)

    static let sensitiveKeyFragments = ["token", "secret", "password", "passwd", "apikey", "api_key", "api-key",
                                        "authorization", "cookie", "credential", "private_key", "privatekey",
                                        "session_key", "signature", "x-auth"]

    /// The fragments as bytes, for the ASCII fast path.
    private static let sensitiveKeyFragmentBytes: [[UInt8]] = sensitiveKeyFragments.map { Array($0.utf8) }

    /// True for keys whose string values are secrets.
    public static func isSensitiveKey(_ key: String) -> Bool {
        // Every key of every record passes here (listings redact each record): an ASCII key is
        // folded byte by byte without a new string. Other keys take Unicode lowercasing, since
        // some non-ASCII letters lowercase to ASCII ones (U+212A KELVIN SIGN → "k").
        var key = key
        let ascii: Bool? = key.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return sensitiveKeyFragmentBytes.contains { containsFoldingASCII(bytes, $0) }
        }
        if let ascii { return ascii }
        let lowered = key.lowercased()
        return sensitiveKeyFragments.contains { contains(lowered, $0) }
    }

    /// True when `needle` (lowercase ASCII) occurs in `text` (ASCII), ignoring ASCII case.
    private static func containsFoldingASCII(_ text: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard needle.count <= text.count else { return false }
        for start in 0...(text.count - needle.count) {
            var i = 0
            while i < needle.count, Self.foldedASCII(text[start + i]) == needle[i] { i += 1 }
            if i == needle.count { return true }
        }
        return false
    }

    private static func foldedASCII(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Placeholders the SDK substitutes are templates, not secrets.
    static func isTemplate(_ value: String) -> Bool {
        value.hasPrefix("{") && value.hasSuffix("}") && !value.contains(" ") && value.count < 40
    }

    /// The text shown instead of a secret.
    public static func fingerprint(_ secret: String) -> String {
        "‹redacted sha256:\(SHA256Hasher.hex(of: secret).prefix(8))›"
    }

    /// True for a fingerprint itself (a sanitised dump stores them in place of its secrets):
    /// shown as it is, never learned or fingerprinted again, so it reads the same everywhere.
    public static func isFingerprint(_ text: String) -> Bool {
        text.hasPrefix("‹redacted sha256:") && text.hasSuffix("›") && text.utf8.count <= 40
    }

    /// Learns every secret string found under sensitive keys in `value`.
    public mutating func learnSecrets(in value: JSONValue) {
        switch value {
        case .object(let object):
            for member in object {
                if Redactor.isSensitiveKey(member.key), member.value.objectValue == nil {
                    collectStrings(member.value)
                } else {
                    learnSecrets(in: member.value)
                }
            }
        case .array(let elements):
            elements.forEach { learnSecrets(in: $0) }
        default:
            break
        }
    }

    private mutating func collectStrings(_ value: JSONValue) {
        switch value {
        case .string(let s):
            guard s.count >= 6, !Redactor.isTemplate(s), !Redactor.isFingerprint(s) else { return }
            remember(s)
            if s.lowercased().hasPrefix("bearer ") { remember(String(s.dropFirst(7))) }
        case .object(let object): object.forEach { collectStrings($0.value) }
        case .array(let elements): elements.forEach { collectStrings($0) }
        default: break
        }
    }

    /// Adds one secret value explicitly (e.g. a rotated token).
    public mutating func learn(secret: String) {
        guard secret.count >= 6, !Redactor.isFingerprint(secret) else { return }
        remember(secret)
    }

    /// Adds a secret to the set and, when it is new, at its place in `secretsLongestFirst`.
    private mutating func remember(_ secret: String) {
        guard knownSecrets.insert(secret).inserted else { return }
        func before(_ a: String, _ b: String) -> Bool {
            a.utf8.count != b.utf8.count ? a.utf8.count > b.utf8.count : a < b
        }
        var low = 0, high = secretsLongestFirst.count
        while low < high {
            let mid = (low + high) / 2
            if before(secretsLongestFirst[mid], secret) { low = mid + 1 } else { high = mid }
        }
        secretsLongestFirst.insert(secret, at: low)
        if secret.utf8.allSatisfy(Redactor.isUUIDByte) { secretLooksLikeUUIDText = true }
    }

    @inline(__always) private static func isUUIDByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46) || b == 0x2D
    }

    /// A uuid as devices write it: 8-4-4-4-12 hex digits. Such a text holds no JWT ("eyJ"), no
    /// "bearer ", and no known secret unless one is itself hex and dashes.
    static func isCanonicalUUID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { t in
            guard t.count == 36 else { return false }
            for i in 0..<36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard t[i] == 0x2D else { return false }
                } else {
                    guard isUUIDByte(t[i]), t[i] != 0x2D else { return false }
                }
            }
            return true
        }
    }

    /// A copy of `value` with sensitive values fingerprinted and free text scrubbed.
    public func redact(_ value: JSONValue) -> JSONValue {
        guard enabled else { return value }
        switch value {
        case .object(let object):
            var copy = JSONObject()
            for member in object {
                // A sensitive key holding an object (`authorization {strategy, refreshUrl, …}`) is
                // walked key by key: its secret members are themselves sensitive keys.
                if Redactor.isSensitiveKey(member.key), member.value.objectValue == nil {
                    copy[member.key] = redactAll(member.value)
                } else {
                    copy[member.key] = redact(member.value)
                }
            }
            return .object(copy)
        case .array(let elements):
            return .array(elements.map(redact))
        case .string(let s):
            return .string(redact(text: s))
        default:
            return value
        }
    }

    private func redactAll(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let s): return Redactor.isTemplate(s) || s.isEmpty || Redactor.isFingerprint(s) ? value : .string(Redactor.fingerprint(s))
        case .object(let object):
            var copy = JSONObject()
            for member in object { copy[member.key] = redactAll(member.value) }
            return .object(copy)
        case .array(let elements): return .array(elements.map(redactAll))
        default: return value
        }
    }

    /// Free text with known secrets, JWT-shaped strings and Bearer credentials replaced.
    public func redact(text: String) -> String {
        guard enabled, !text.isEmpty else { return text }
        // Every fix's uuid passes here in an export: the common case needs no search.
        if !secretLooksLikeUUIDText, Redactor.isCanonicalUUID(text) { return text }
        var out = text
        let length = text.utf8.count
        for secret in secretsLongestFirst where secret.utf8.count <= length && Redactor.contains(out, secret) {
            out = out.replacingOccurrences(of: secret, with: Redactor.fingerprint(secret))
        }
        if Redactor.contains(out, "eyJ") { out = Redactor.scrubJWTs(out) }
        if Redactor.containsBearer(out) { out = Redactor.scrubBearer(out) }
        return out
    }

    /// Byte search: a report redacts thousands of short texts against every known secret, and
    /// Foundation's `range(of:)` costs a bridge per call.
    static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text, needle = needle
        return text.withUTF8 { t in
            needle.withUTF8 { n in
                guard !n.isEmpty else { return true }
                guard n.count <= t.count else { return false }
                let first = n[0], last = t.count - n.count
                var start = 0
                while start <= last {
                    guard let hit = memchr(t.baseAddress! + start, Int32(first), last - start + 1) else { return false }
                    let at = t.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(t.baseAddress! + at, n.baseAddress!, n.count) == 0 { return true }
                    start = at + 1
                }
                return false
            }
        }
    }

    /// "bearer " in any letter case (ASCII), as `scrubBearer` looks for it.
    static func containsBearer(_ text: String) -> Bool {
        let word: [UInt8] = Array("bearer ".utf8)
        var text = text
        return text.withUTF8 { t in
            guard t.count >= word.count else { return false }
            for start in 0...(t.count - word.count) where t[start] | 0x20 == word[0] {
                var i = 1
                while i < word.count, (i == word.count - 1 ? t[start + i] : t[start + i] | 0x20) == word[i] { i += 1 }
                if i == word.count { return true }
            }
            return false
        }
    }

    /// Replaces `eyJ….….…` (a JWT: base64url header, payload, signature) wherever it stands.
    static func scrubJWTs(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        func isB64(_ b: UInt8) -> Bool {
            (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 95 || b == 61
        }
        while i < bytes.count {
            if i + 3 <= bytes.count, bytes[i] == 101, bytes[i + 1] == 121, bytes[i + 2] == 74,
               i == 0 || !isB64(bytes[i - 1]) || bytes[i - 1] == 61 {
                var j = i
                var dots = 0
                while j < bytes.count, isB64(bytes[j]) || (bytes[j] == 46 && dots < 2) {
                    if bytes[j] == 46 { dots += 1 }
                    j += 1
                }
                if dots == 2, j - i >= 20 {
                    let token = String(decoding: bytes[i..<j], as: UTF8.self)
                    out.append(contentsOf: Array(fingerprint(token).utf8))
                    i = j
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func scrubBearer(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "bearer ", options: .caseInsensitive) {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let token = rest.prefix { !$0.isWhitespace && $0 != "\"" && $0 != "'" && $0 != "," && $0 != "}" }
            if token.count >= 6, !token.hasPrefix("‹redacted") {
                result += fingerprint(String(token))
                rest = rest.dropFirst(token.count)
            }
        }
        return result + rest
    }
}

extension Dump {
    /// A redactor that knows every secret recorded in this dump: `state.config`, `state.auth`,
    /// and every `config` log line.
    public func makeRedactor(enabled: Bool = true) -> Redactor { makeRedactor(enabled: enabled, configLines: nil) }

    /// `makeRedactor`, handing each `config` log line it reads to `configLines` too (none are
    /// read when redaction is off).
    func makeRedactor(enabled: Bool, configLines: ((LogEntry) -> Void)?) -> Redactor {
        var redactor = Redactor(enabled: enabled)
        guard enabled else { return redactor }
        let state = engineState()
        if let config = state.config { redactor.learnSecrets(in: .object(config)) }
        if let auth = state.auth {
            redactor.learnSecrets(in: .object(auth))
            // auth keys are all secrets, whatever they are called.
            for member in auth { if let s = member.value.stringValue { redactor.learn(secret: s) } }
        }
        forEachLogEntry(LogQuery(events: ["config", "auth.refresh.result"])) { entry in
            if let data = entry.data { redactor.learnSecrets(in: data) }
            if let configLines, entry.event == "config" { configLines(entry) }
        }
        return redactor
    }
}
