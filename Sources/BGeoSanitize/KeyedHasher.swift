import BGeoForensics
/// HMAC-SHA-256 (RFC 2104) of customer values under a key drawn at random for one run and never
/// stored: equal values get equal hashes inside one sanitised dump (a fleet id can still be
/// followed from row to row), but no one can confirm a guess ("is it north-42?") without the key.
struct KeyedHasher {
    private let innerPad: [UInt8]
    private let outerPad: [UInt8]
    /// Values repeat on every row (`fleetId` on a million records): hash each once. Keyed by
    /// bytes (`ExactText`), as the hash is: two spellings of one word keep their own hashes.
    private var cache: [ExactText: String] = [:]

    /// Hex digits kept: 48 bits, so millions of distinct values do not collide in practice.
    static let digits = 12

    init(key: [UInt8]) {
        precondition(key.count <= 64, "HMAC-SHA-256 keys longer than a block are hashed first; ours are 32 bytes")
        let block = key + [UInt8](repeating: 0, count: 64 - key.count)
        innerPad = block.map { $0 ^ 0x36 }
        outerPad = block.map { $0 ^ 0x5c }
    }

    /// A hasher with a fresh random 256-bit key.
    static func random() -> KeyedHasher {
        var generator = SystemRandomNumberGenerator()
        return KeyedHasher(key: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The full HMAC in lower-case hex.
    func hmacHex(_ text: String) -> String {
        var inner = SHA256Hasher()
        innerPad.withUnsafeBytes { inner.update($0) }
        inner.update(text)
        let innerDigest = KeyedHasher.bytes(ofHex: inner.finalizeHex())
        var outer = SHA256Hasher()
        outerPad.withUnsafeBytes { outer.update($0) }
        innerDigest.withUnsafeBytes { outer.update($0) }
        return outer.finalizeHex()
    }

    /// The text that replaces a value: `‹hmac 3f9a1c2b7d4e›`.
    mutating func replacement(for text: String) -> String {
        if let cached = cache[ExactText(text)] { return cached }
        let result = "‹hmac " + hmacHex(text).prefix(KeyedHasher.digits) + "›"
        if cache.count >= 100_000 { cache.removeAll(keepingCapacity: true) }
        cache[ExactText(text)] = result
        return result
    }

    private static func bytes(ofHex hex: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        var high: UInt8?
        for c in hex.utf8 {
            let nibble = c <= 57 ? c - 48 : c - 87
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return out
    }
}
