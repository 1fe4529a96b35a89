/// The one list of names that mark a secret, used by every output's `Redactor` and by `sanitize`:
/// which JSON keys hold secrets, which `name=value` / `name: value` pairs in free text do, which
/// HTTP headers are *not* secret (every other header value is), and which keys hold headers.
public enum SecretRules {
    /// A key containing one of these (any letter case) holds a secret.
    public static let sensitiveKeyFragments = ["token", "secret", "password", "passwd", "apikey", "api_key", "api-key",
                                               "authorization", "cookie", "credential", "private_key", "privatekey",
                                               "session_key", "signature", "x-auth"]

    /// Pair names (`?sig=…`, `code=…`) that carry credentials although they name no secret on
    /// their own: matched whole, not as fragments.
    public static let credentialPairNames: Set<String> = ["key", "sig", "auth", "jwt", "code", "access", "pass"]

    /// Header names whose values are protocol, not credentials. Every other header's value is
    /// treated as a secret (`X-Access-Key`, `X-Tenant`, a custom token header…).
    public static let plainHeaders: Set<String> = ["accept", "accept-charset", "accept-encoding", "accept-language",
                                                   "cache-control", "connection", "content-encoding", "content-length",
                                                   "content-type", "host", "user-agent"]

    /// True for keys whose string values are secrets.
    public static func isSensitiveKey(_ key: String) -> Bool { Redactor.isSensitiveKey(key) }

    /// True for a `name=value` / `name: value` pair whose value is a credential.
    public static func isSensitivePairName(_ name: String) -> Bool {
        isSensitiveKey(name) || credentialPairNames.contains(name.lowercased())
    }

    /// True when a header's value must be treated as a secret.
    public static func isSecretHeader(_ name: String) -> Bool { !plainHeaders.contains(name.lowercased()) }

    /// True for object keys whose members are HTTP headers (`headers`, `refreshHeaders`).
    public static func isHeadersKey(_ key: String) -> Bool { key.lowercased().hasSuffix("headers") }

    /// A superset test for "may this text hold a sensitive pair name?", so that the pair rules
    /// run only where one can occur.
    static let pairNameFilter = SensitiveNameFilter(sensitiveKeyFragments + credentialPairNames)
}

/// "Could this text contain one of these names, in any letter case?" — a superset test that
/// lets the pair rules run only where a sensitive name can occur, and a survey parse only the
/// JSON that can hold a sensitive key. A bitmap of the fragments' first two bytes (lower-cased)
/// rejects almost every position before any comparison.
package struct SensitiveNameFilter: Sendable {
    /// Lower-case fragments of two bytes or more.
    private let fragments: [[UInt8]]
    /// Bit `b0 << 8 | b1` set when a fragment starts with b0 b1.
    private let pairBits: [UInt64]

    package init(_ names: some Sequence<String>) {
        let list = Set(names.map { $0.lowercased() }).map { Array($0.utf8) }.filter { $0.count >= 2 }.sorted { $0.lexicographicallyPrecedes($1) }
        var bits = [UInt64](repeating: 0, count: 1024)
        for bytes in list {
            let pair = Int(bytes[0]) << 8 | Int(bytes[1])
            bits[pair >> 6] |= 1 << UInt64(pair & 63)
        }
        fragments = list
        pairBits = bits
    }

    package func mayContainName(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { mayContainName(bytes: $0) }
    }

    package func mayContainName(bytes t: UnsafeBufferPointer<UInt8>) -> Bool {
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
