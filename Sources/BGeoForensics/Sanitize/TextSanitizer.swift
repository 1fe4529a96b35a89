/// Free text of any column, scrubbed the way every output of the tool is, plus the URL policy:
/// learned secrets, JWTs and Bearer credentials become fingerprints (`Redactor`), then
/// sensitive `name=value` / `"name": "value"` pairs (`SecretScrubber`), then URLs
/// (`URLReducer`). Cheap byte checks decide first whether a step can change anything at all: a
/// million timestamps and uuids must not each pay for a search over hundreds of secrets.
struct TextSanitizer {
    let redactor: Redactor
    let matcher: SecretMatcher
    let urls: URLPolicy
    private let names: SensitiveNameFilter

    init(redactor: Redactor, urls: URLPolicy) {
        self.redactor = redactor
        self.urls = urls
        matcher = SecretMatcher(secrets: redactor.knownSecrets)
        names = SensitiveNameFilter(Redactor.sensitiveKeyFragments + SecretScrubber.extraNames)
    }

    func scrub(_ text: String, _ changes: inout CellChanges) -> String {
        guard !text.isEmpty else { return text }
        var out = text
        if matcher.matches(out) || Redactor.contains(out, "eyJ") || Redactor.containsBearer(out) {
            let redacted = redactor.redact(text: out)
            if redacted != out {
                changes.insert(.secrets)
                out = redacted
            }
        }
        if names.mayContainName(out) {
            let scrubbed = SecretScrubber.scrubPairs(out)
            if scrubbed != out {
                changes.insert(.secrets)
                out = scrubbed
            }
        }
        let reduced = URLReducer.apply(out, policy: urls)
        if reduced != out {
            changes.insert(.urls)
            out = reduced
        }
        return out
    }

    /// True when `text` is exactly one learned secret.
    func isKnownSecret(_ text: String) -> Bool { redactor.knownSecrets.contains(text) }
}

/// "Could this text contain one of these names, in any letter case?" — a superset test that
/// lets `SecretScrubber.scrubPairs` run only where a sensitive name can occur, and a survey parse
/// only the JSON that can hold a sensitive key. A bitmap of the fragments' first two bytes
/// (lower-cased) rejects almost every position before any comparison.
struct SensitiveNameFilter: Sendable {
    /// Lower-case fragments of two bytes or more.
    private let fragments: [[UInt8]]
    /// Bit `b0 << 8 | b1` set when a fragment starts with b0 b1.
    private let pairBits: [UInt64]

    init(_ names: some Sequence<String>) {
        let list = Set(names.map { $0.lowercased() }).map { Array($0.utf8) }.filter { $0.count >= 2 }.sorted { $0.lexicographicallyPrecedes($1) }
        var bits = [UInt64](repeating: 0, count: 1024)
        for bytes in list {
            let pair = Int(bytes[0]) << 8 | Int(bytes[1])
            bits[pair >> 6] |= 1 << UInt64(pair & 63)
        }
        fragments = list
        pairBits = bits
    }

    func mayContainName(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { mayContainName(bytes: $0) }
    }

    func mayContainName(bytes t: UnsafeBufferPointer<UInt8>) -> Bool {
        guard t.count >= 2 else { return false }
        return pairBits.withUnsafeBufferPointer { bits in
            var previous = SensitiveNameFilter.lower(t[0])
            for start in 0..<(t.count - 1) {
                let next = SensitiveNameFilter.lower(t[start + 1])
                let pair = Int(previous) << 8 | Int(next)
                previous = next
                guard bits[pair >> 6] & (1 << UInt64(pair & 63)) != 0 else { continue }
                let first = SensitiveNameFilter.lower(t[start])
                for fragment in fragments where fragment[0] == first && start + fragment.count <= t.count {
                    var i = 1
                    while i < fragment.count, SensitiveNameFilter.lower(t[start + i]) == fragment[i] { i += 1 }
                    if i == fragment.count { return true }
                }
            }
            return false
        }
    }

    private static func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
}
