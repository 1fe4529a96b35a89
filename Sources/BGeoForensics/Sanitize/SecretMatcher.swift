import Foundation

/// Finds any of many known secrets in bytes in one pass. A dump can hold hundreds of learned
/// tokens (every rotation) and millions of cells, so searching each cell once per secret is out
/// of the question: a bitmap of the secrets' first two bytes rejects almost every position at
/// once, and only positions that pass compare against the secrets sharing their first four bytes.
struct SecretMatcher: Sendable {
    private let secrets: [[UInt8]]
    /// Bit `b0 << 8 | b1` set when some secret starts with bytes b0 b1.
    private let pairBits: [UInt64]
    /// Secrets (indices) by their first four bytes.
    private let byPrefix: [UInt32: [Int]]
    /// Bytes of the longest secret (the overlap a chunked scan needs).
    let longest: Int

    /// Secrets shorter than four bytes are ignored (the redactor learns none below six).
    init(secrets: some Sequence<String>) {
        let list = Set(secrets).map { Array($0.utf8) }.filter { $0.count >= 4 }.sorted { $0.lexicographicallyPrecedes($1) }
        var bits = [UInt64](repeating: 0, count: 1024)
        var prefixes: [UInt32: [Int]] = [:]
        for (index, bytes) in list.enumerated() {
            let pair = Int(bytes[0]) << 8 | Int(bytes[1])
            bits[pair >> 6] |= 1 << UInt64(pair & 63)
            prefixes[SecretMatcher.word(bytes, 0), default: []].append(index)
        }
        self.secrets = list
        pairBits = bits
        byPrefix = prefixes
        longest = list.map(\.count).max() ?? 0
    }

    var isEmpty: Bool { secrets.isEmpty }

    private static func word(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    /// True when `text` contains any of the secrets.
    func matches(_ text: String) -> Bool {
        guard !secrets.isEmpty else { return false }
        var copy = text
        return copy.withUTF8 { countMatches(in: UnsafeRawBufferPointer($0), limit: 1) > 0 }
    }

    /// Occurrences of any secret starting in `bytes` (overlapping hits each count), up to `limit`.
    func countMatches(in bytes: UnsafeRawBufferPointer, limit: Int = .max) -> Int {
        guard !secrets.isEmpty, bytes.count >= 4, let base = bytes.baseAddress else { return 0 }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        var found = 0
        var i = 0
        while i + 4 <= count {
            let pair = Int(p[i]) << 8 | Int(p[i + 1])
            if pairBits[pair >> 6] & (1 << UInt64(pair & 63)) != 0 {
                let key = UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | UInt32(p[i + 3])
                if let candidates = byPrefix[key] {
                    for index in candidates {
                        let secret = secrets[index]
                        guard i + secret.count <= count else { continue }
                        let equal = secret.withUnsafeBufferPointer { memcmp(p + i, $0.baseAddress!, secret.count) == 0 }
                        if equal {
                            found += 1
                            if found >= limit { return found }
                        }
                    }
                }
            }
            i += 1
        }
        return found
    }
}
