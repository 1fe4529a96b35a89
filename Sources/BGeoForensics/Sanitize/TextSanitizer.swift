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
/// lets `SecretScrubber.scrubPairs` run only where a sensitive name can occur.
struct SensitiveNameFilter: Sendable {
    /// Lower-case fragments, grouped by first byte.
    private let byFirstByte: [[[UInt8]]]
    /// Bit b set when some fragment starts with byte b (almost every byte is rejected here).
    private let firstBytes: (UInt64, UInt64, UInt64, UInt64)

    init(_ fragments: some Sequence<String>) {
        var table = [[[UInt8]]](repeating: [], count: 256)
        for fragment in Set(fragments.map { $0.lowercased() }) where !fragment.isEmpty {
            let bytes = Array(fragment.utf8)
            table[Int(bytes[0])].append(bytes)
        }
        byFirstByte = table
        var bits: [UInt64] = [0, 0, 0, 0]
        for b in 0..<256 where !table[b].isEmpty { bits[b >> 6] |= 1 << UInt64(b & 63) }
        firstBytes = (bits[0], bits[1], bits[2], bits[3])
    }

    func mayContainName(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { mayContainName(bytes: $0) }
    }

    func mayContainName(bytes t: UnsafeBufferPointer<UInt8>) -> Bool {
        let (b0, b1, b2, b3) = firstBytes
        for start in t.indices {
            let byte = Int(SensitiveNameFilter.lower(t[start]))
            let word = byte < 128 ? (byte < 64 ? b0 : b1) : (byte < 192 ? b2 : b3)
            guard word & (1 << UInt64(byte & 63)) != 0 else { continue }
            let candidates = byFirstByte[byte]
            for fragment in candidates where start + fragment.count <= t.count {
                var i = 1
                while i < fragment.count, SensitiveNameFilter.lower(t[start + i]) == fragment[i] { i += 1 }
                if i == fragment.count { return true }
            }
        }
        return false
    }

    private static func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
}
