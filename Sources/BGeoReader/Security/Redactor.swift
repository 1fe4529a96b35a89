import Foundation
import Synchronization

/// Keeps secrets out of every output: every command's text, JSON, NDJSON, CSV, HTML, GPX, KML,
/// GeoJSON, fleet row and export goes through one of these, and `sanitize` applies the same
/// rules. Three layers:
/// 1. structural: in JSON, string values under sensitive keys (`SecretRules`: tokens, secrets,
///    passwords, api keys, Authorization) and every header value but the few plain ones are
///    replaced by a fingerprint;
/// 2. known secrets: every secret value the dump is known to hold (learned from `state` and
///    `config` / `auth.refresh.result` lines, and during a run) is replaced wherever it appears,
///    in every form (`SecretSearch`: JSON-escaped, `\u`-escaped, percent-encoded, base64, cut off);
/// 3. free text: JWT-shaped strings, `Bearer` credentials, credential pairs (`Authorization: …`,
///    `X-Api-Key: …`, `"token" : "…"`, `password=…`, `?sig=…`) and URL user-info.
/// A fingerprint (`‹redacted sha256:1a2b3c4d›`) lets two places be compared without revealing either.
public struct Redactor: Sendable {
    /// When false, nothing is redacted (the user passed `--show-secrets`).
    public var enabled: Bool
    /// Keyed by bytes (`ExactText`): two spellings of one secret are two secrets to search for.
    package private(set) var knownSecrets: Set<ExactText> = []
    /// The known secrets, longest first (then by text): a secret that contains another is
    /// replaced whole, the same way in every run, and a text is only searched for secrets that
    /// fit in it. Put in order when the search over them is compiled, not as each is learned: a
    /// dump may state 200,000 secrets, and an insertion in order moved the list once per secret.
    var secretsLongestFirst: [String] {
        knownSecrets.sorted { a, b in a.text.utf8.count != b.text.utf8.count ? a.text.utf8.count > b.text.utf8.count : a < b }.map(\.text)
    }
    /// True when some form of a known secret could lie inside a plain token (`leavesAsIs`), or
    /// a sensitive name could be spelled in one (`plainTokensSpellNoName` false): then plain
    /// tokens are searched like any text (see `redact(text:)`). Held here, not read from the
    /// static for every token: on Linux each read of a global calls `swift_once` (1.6 % of
    /// `sanitize` on the legacy shape, stop 55).
    private var plainTokensSearched: Bool

    public init(enabled: Bool = true) {
        self.enabled = enabled
        plainTokensSearched = !Redactor.plainTokensSpellNoName
    }

    /// A redactor that never redacts.
    public static let disabled = Redactor(enabled: false)

    /// The key fragments that mark a secret (`SecretRules`, the one list).
    static var sensitiveKeyFragments: [String] { SecretRules.sensitiveKeyFragments }

    /// The fragments as bytes, for the ASCII fast path.
    private static let sensitiveKeyFragmentBytes: [[UInt8]] = SecretRules.sensitiveKeyFragments.map { Array($0.utf8) }

    /// The compiled search over the known secrets, built at the first redaction after a change.
    private var index = SecretIndex()

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
            while i < needle.count, ByteSearch.foldedASCII(text[start + i]) == needle[i] { i += 1 }
            if i == needle.count { return true }
        }
        return false
    }

    /// Placeholders the SDK substitutes are templates, not secrets.
    package static func isTemplate(_ value: String) -> Bool {
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
    /// Header values count as secrets (`SecretRules.isSecretHeader`), and so does the password
    /// of a URL's user-info (`https://user:password@host`) in any string: redacted in its URL
    /// wherever it appears, it is redacted as a word elsewhere too (a response or an app line
    /// that repeats it).
    public mutating func learnSecrets(in value: JSONValue) {
        switch value {
        case .object(let object):
            for member in object {
                if Redactor.isSensitiveKey(member.key), member.value.objectValue == nil {
                    collectStrings(member.value)
                } else if SecretRules.isHeadersKey(member.key), let headers = member.value.objectValue {
                    for header in headers {
                        if SecretRules.isSecretHeader(header.key), header.value.objectValue == nil {
                            collectStrings(header.value)
                        } else {
                            learnSecrets(in: header.value)
                        }
                    }
                } else {
                    learnSecrets(in: member.value)
                }
            }
        case .array(let elements):
            elements.forEach { learnSecrets(in: $0) }
        case .string(let text):
            for password in URLReducer.passwords(in: text) { learn(secret: password) }
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

    /// Learns every secret `other` knows (a part of a read learned apart: the result does not
    /// depend on the order secrets are learned in).
    package mutating func learn(from other: Redactor) {
        for secret in other.knownSecrets { remember(secret.text) }
    }

    /// Adds a secret to the set; a new one makes the search be compiled again when next used.
    private mutating func remember(_ secret: String) {
        guard knownSecrets.insert(ExactText(secret)).inserted else { return }
        if Redactor.mayLieInPlainToken(secret) { plainTokensSearched = true }
        index = SecretIndex()
    }

    /// The bytes of uuids, timestamps and numbers: hex digits, `-`, `:`, `.`, `+`, `T`, `Z`.
    /// None of them starts a URL (`/`, `@`), a JWT (`y`, `J`) or `bearer` (`r`). A function of
    /// comparisons, not a table in a global (see `plainTokensSearched`).
    @inline(__always) static func isPlainTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x61...0x66, 0x41...0x46, UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "."),
             UInt8(ascii: "+"), UInt8(ascii: "T"), UInt8(ascii: "Z"):
            return true
        default:
            return false
        }
    }

    /// True when `redact(text:)` gives back a text with these UTF-8 bytes as it is without
    /// searching: a plain token — made only of plain-token bytes (`3c365801-5930-…`,
    /// `2026-03-01T06:00:05.000Z`, `52.2297182`), so it holds no URL, JWT, Bearer credential or
    /// credential pair — while no known secret could lie in one (or redaction is off). Callers
    /// holding bytes ask this before they make a string.
    package func leavesAsIs(plainToken bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        for byte in bytes where !Redactor.isPlainTokenByte(byte) { return false }
        return !enabled || !plainTokensSearched
    }

    /// True when some form `SecretSearch` looks for (as it is, escaped, percent-encoded, base64,
    /// or cut off after `cutPrefix` characters) could occur inside a plain token: its bytes, as
    /// far as a match must reach, are all plain-token bytes.
    static func mayLieInPlainToken(_ secret: String) -> Bool {
        SecretSearch.forms(of: Array(secret.utf8)).contains { form in
            form.bytes.prefix(form.allowsCut ? SecretSearch.cutPrefix : form.bytes.count).allSatisfy(isPlainTokenByte)
        }
    }

    /// No sensitive name or credential-pair name (`SecretRules`) can be spelled in plain-token
    /// bytes in any letter case: checked once from the lists, so a name added later that could
    /// (`"fee"`) turns the shortcut off instead of slipping through it.
    static let plainTokensSpellNoName: Bool = (SecretRules.sensitiveKeyFragments + SecretRules.credentialPairNames).allSatisfy { name in
        name.utf8.contains { byte in
            let lower = ByteSearch.foldedASCII(byte)
            let upper = lower >= 0x61 && lower <= 0x7A ? lower & ~0x20 : lower
            return !isPlainTokenByte(lower) && !isPlainTokenByte(upper)
        }
    }

    /// A copy of `value` with sensitive values fingerprinted and free text scrubbed.
    public func redact(_ value: JSONValue) -> JSONValue {
        guard enabled else { return value }
        switch value {
        case .object(let object):
            return .object(object.mappingValues { key, value in
                // A sensitive key holding an object (`authorization {strategy, refreshUrl, …}`) is
                // walked key by key: its secret members are themselves sensitive keys.
                if Redactor.isSensitiveKey(key), value.objectValue == nil { return redactAll(value) }
                if SecretRules.isHeadersKey(key), let headers = value.objectValue {
                    return .object(headers.mappingValues { name, header in
                        SecretRules.isSecretHeader(name) && header.objectValue == nil ? redactAll(header) : redact(header)
                    })
                }
                return redact(value)
            })
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
        case .string(let s): return .string(Redactor.redactAll(string: s))
        case .object(let object): return .object(object.mappingValues { _, value in redactAll(value) })
        case .array(let elements): return .array(elements.map(redactAll))
        default: return value
        }
    }

    /// A string under a sensitive name or secret header: its fingerprint, unless it is a template,
    /// empty or a fingerprint already.
    package static func redactAll(string s: String) -> String {
        isTemplate(s) || s.isEmpty || isFingerprint(s) ? s : fingerprint(s)
    }

    /// Free text with known secrets (in every form), JWT-shaped strings, Bearer credentials,
    /// credential pairs and URL user-info replaced by fingerprints.
    public func redact(text: String) -> String {
        guard enabled, !text.isEmpty else { return text }
        // Every fix's uuid and timestamp passes here in an export or a sanitised copy: the common
        // case needs no search.
        var bytes = text
        if bytes.withUTF8({ leavesAsIs(plainToken: $0) }) { return text }
        // User-info first: a fingerprint holds a space, which would end the URL it sits in.
        var out = Redactor.contains(text, "@") ? URLReducer.apply(text, policy: .keep) : text
        if !knownSecrets.isEmpty { out = replacingKnownSecrets(in: out) }
        if Redactor.contains(out, "eyJ") { out = Redactor.scrubJWTs(out) }
        if Redactor.containsBearer(out) { out = Redactor.scrubBearer(out) }
        if SecretRules.pairNameFilter.mayContainName(out) { out = Redactor.scrubPairs(out) }
        return out
    }

    /// Every known secret in `text`, in any of its forms and readings, as its fingerprint.
    private func replacingKnownSecrets(in text: String) -> String {
        let search = secretSearch
        var text = text
        // Nearly every text holds no secret: it is handed back as it is, not copied.
        guard let out = text.withUTF8({ search.fingerprintingHits(in: $0) }) else { return text }
        return String(decoding: out, as: UTF8.self)
    }

    /// The search over every known secret's forms (sanitize's raw-byte check uses it too).
    package var secretSearch: SecretSearch { index.search { secretsLongestFirst } }
}

/// The compiled `SecretSearch` of a redactor's secrets, built once at the first redaction after
/// they changed (learning replaces it): a dump's secrets are learned in a burst, then searched
/// millions of times. Shared by copies of the redactor that know the same secrets.
final class SecretIndex: Sendable {
    private let compiled = Mutex<SecretSearch?>(nil)

    /// The search, compiled over `secrets()` (longest first) the first time.
    func search(over secrets: () -> [String]) -> SecretSearch {
        compiled.withLock { cached in
            if let cached { return cached }
            let search = SecretSearch(secrets: secrets())
            cached = search
            return search
        }
    }
}
