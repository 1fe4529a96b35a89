/// A fixed-size Bloom filter over uuids: "certainly not seen" or "perhaps seen". The streamed
/// trace uses it to notice a uuid whose copies are too far apart for the grouping window (two
/// groups for one uuid) without a set that grows with the dump: 16 MiB whatever the dump's
/// size; a false "perhaps" only costs a check of that uuid afterwards.
struct UUIDFilter {
    private var words: [UInt64]
    private let mask: UInt64
    private static let probes = 5

    /// `bits` is rounded up to a power of two (at least 2^10).
    init(bits: Int = 1 << 27) {
        var size = 1 << 10
        while size < bits { size <<= 1 }
        words = [UInt64](repeating: 0, count: size / 64)
        mask = UInt64(size - 1)
    }

    /// Records `uuid`; returns whether it was perhaps recorded before.
    mutating func insert(_ uuid: String) -> Bool {
        let (h1, h2) = UUIDFilter.hashes(uuid)
        var seen = true
        words.withUnsafeMutableBufferPointer { words in
            var h = h1
            for _ in 0..<UUIDFilter.probes {
                let bit = h & mask
                let word = Int(bit >> 6), flag = UInt64(1) << (bit & 63)
                if words[word] & flag == 0 {
                    seen = false
                    words[word] |= flag
                }
                h &+= h2
            }
        }
        return seen
    }

    /// Two independent 64-bit hashes of the uuid's bytes (double hashing gives the probes).
    static func hashes(_ uuid: String) -> (UInt64, UInt64) {
        var uuid = uuid
        return uuid.withUTF8 { bytes in
            var a: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
            var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
            for byte in bytes {
                a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                b = (b &+ UInt64(byte)) &* 0xFF51_AFD7_ED55_8CCD
                b ^= b >> 29
            }
            a ^= a >> 33
            a = a &* 0xC4CE_B9FE_1A85_EC53
            a ^= a >> 33
            return (a, b | 1)
        }
    }
}
