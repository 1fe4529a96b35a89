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

    /// A superset test for "may this JSON hold a key whose value is a secret to learn?" (a name
    /// of a secret, a headers key, or a key written with a `\u` escape).
    package static let keyNameFilter = SensitiveNameFilter(sensitiveKeyFragments + ["headers", "\\u"])

    /// Whether a JSON text may state a secret `Redactor.learnSecrets` learns: a key
    /// `keyNameFilter` may find, or a URL with user-info (`URLReducer.mayHoldUserInfo`). The one
    /// rule for which documents the learning parses: the log's secret rows (`LogSecrets`) and
    /// `sanitize`'s survey.
    package static func mayStateSecrets(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        keyNameFilter.mayContainName(bytes: bytes) || URLReducer.mayHoldUserInfo(bytes)
    }

    package static func mayStateSecrets(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { mayStateSecrets(bytes: $0) }
    }
}

/// "Could this text contain one of these names, in any letter case?" — a superset test that
/// lets the pair rules run only where a sensitive name can occur, and a survey parse only the
/// JSON that can hold a sensitive key. A bitmap of the fragments' first two bytes (lower-cased)
/// rejects almost every position before any comparison.
package struct SensitiveNameFilter: Sendable {
    /// Lower-case fragments of two bytes or more, sorted, end to end: fragment `i` is
    /// `bytes[bounds[i]..<bounds[i + 1]]` (flat, so a comparison retains no array).
    private let bytes: [UInt8]
    private let bounds: [Int]
    /// Fragments starting with byte `b` are `byFirst[b]..<byFirst[b + 1]` (sorted, so contiguous).
    private let byFirst: [Int]
    /// Bit `b0 << 8 | b1` set when a fragment starts with b0 b1.
    private let pairBits: [UInt64]

    package init(_ names: some Sequence<String>) {
        let list = Set(names.map { $0.lowercased() }).map { Array($0.utf8) }.filter { $0.count >= 2 }.sorted { $0.lexicographicallyPrecedes($1) }
        var bits = [UInt64](repeating: 0, count: 1024)
        var flat: [UInt8] = [], bounds = [0]
        // byFirst[b]: how many fragments start with a byte below b.
        var byFirst = [Int](repeating: 0, count: 257)
        for fragment in list { byFirst[Int(fragment[0]) + 1] += 1 }
        for b in 1...256 { byFirst[b] += byFirst[b - 1] }
        for fragment in list {
            let pair = Int(fragment[0]) << 8 | Int(fragment[1])
            bits[pair >> 6] |= 1 << UInt64(pair & 63)
            flat += fragment
            bounds.append(flat.count)
        }
        bytes = flat
        self.bounds = bounds
        self.byFirst = byFirst
        pairBits = bits
    }

    package func mayContainName(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { mayContainName(bytes: $0) }
    }

    /// True when a name may occur in `t`, in any letter case. A byte outside ASCII answers true:
    /// the rules compare names after Unicode lowercasing (`Redactor.isSensitiveKey`), which turns
    /// U+212A KELVIN SIGN into "k", so "to\u{212A}en" names a token though no byte spells it.
    package func mayContainName(bytes t: UnsafeBufferPointer<UInt8>) -> Bool {
        guard t.count >= 2 else { return false }
        if t[0] >= 0x80 { return true }
        return withTables { tables in
            var previous = SensitiveNameFilter.lower(t[0])
            for start in 0..<(t.count - 1) {
                let next = t[start + 1]
                if next >= 0x80 { return true }
                let first = previous
                previous = SensitiveNameFilter.lower(next)
                if tables.pairMayStart(first, previous), tables.nameStarts(at: start, in: t) { return true }
            }
            return false
        }
    }

    /// The filter's tables as plain pointers, valid inside `withTables`: what a scan that reads
    /// the bytes anyway tests as it goes (`VerbatimJSON.form(_:holdingNoneOf:)`), so the
    /// text is not read a second time for names.
    package struct Tables {
        fileprivate let bits: UnsafeBufferPointer<UInt64>
        fileprivate let flat: UnsafeBufferPointer<UInt8>
        fileprivate let bounds: UnsafeBufferPointer<Int>
        fileprivate let byFirst: UnsafeBufferPointer<Int>

        /// True when some name starts with these two (lower-cased) bytes: almost never, so this
        /// is all most positions cost.
        @inline(__always) package func pairMayStart(_ first: UInt8, _ next: UInt8) -> Bool {
            let pair = Int(first) << 8 | Int(next)
            return bits[pair >> 6] & (1 << UInt64(pair & 63)) != 0
        }

        /// True when a name starts at `start` in `t`, in any letter case.
        package func nameStarts(at start: Int, in t: UnsafeBufferPointer<UInt8>) -> Bool {
            let first = Int(SensitiveNameFilter.lower(t[start]))
            for f in byFirst[first]..<byFirst[first + 1] {
                let from = bounds[f], length = bounds[f + 1] - from
                guard start + length <= t.count else { continue }
                var i = 1
                while i < length, SensitiveNameFilter.lower(t[start + i]) == flat[from + i] { i += 1 }
                if i == length { return true }
            }
            return false
        }
    }

    package func withTables<R>(_ body: (Tables) -> R) -> R {
        pairBits.withUnsafeBufferPointer { bits in
            bytes.withUnsafeBufferPointer { flat in
                bounds.withUnsafeBufferPointer { bounds in
                    byFirst.withUnsafeBufferPointer { byFirst in
                        body(Tables(bits: bits, flat: flat, bounds: bounds, byFirst: byFirst))
                    }
                }
            }
        }
    }

    @inline(__always) package static func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }

    /// The characters outside ASCII whose lowercase holds ASCII: U+0130 (`i` + U+0307) and the
    /// Kelvin sign U+212A (`k`). Every name rule compares names lowercased, so only these can
    /// spell a name no byte spells; text free of them holds a name only where its ASCII bytes,
    /// folded, do. (`SensitiveNameFilterTests` checks the list against every scalar.)
    @inline(__always) package static func lowercasesToASCII(_ scalar: UInt32) -> Bool {
        scalar == 0x130 || scalar == 0x212A
    }
}
