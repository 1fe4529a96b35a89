import BGeoReader
import Foundation

/// A fixed-size Bloom filter over uuids: "certainly not seen" or "perhaps seen". The streamed
/// trace uses it to notice a uuid whose copies are too far apart for the grouping window (two
/// groups for one uuid) without a set that grows with the dump: 16 MiB whatever the dump's
/// size; a false "perhaps" only costs a check of that uuid afterwards. A blocked filter: each
/// uuid's probes share one cache line.
final class UUIDFilter {
    private let words: UnsafeMutablePointer<UInt64>
    private let mask: UInt64
    private static let probes = 5

    /// `bits` is rounded up to a power of two (at least 2^10). A large filter sits in huge pages
    /// where the system allows it: each probe is a cache miss already, a TLB miss need not add.
    init(bits: Int = 1 << 27) {
        var size = 1 << 10
        while size < bits { size <<= 1 }
        let bytes = size / 8
        let hugePage = 1 << 21
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: bytes >= hugePage ? hugePage : 64)
        #if canImport(Glibc)
        if bytes >= hugePage { _ = madvise(raw, bytes, Int32(MADV_HUGEPAGE)) }
        #endif
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        words = raw.bindMemory(to: UInt64.self, capacity: bytes / 8)
        mask = UInt64(size - 1)
    }

    deinit { words.deallocate() }

    /// Records `uuid`; returns whether it was perhaps recorded before.
    func insert(_ uuid: String) -> Bool { insert(hashes: UUIDFilter.hashes(uuid)) }

    /// Records a uuid by its `hashes`; returns whether it was perhaps recorded before. The probes
    /// all fall in one 512-bit block (one cache line of a 16 MiB filter: a single memory miss).
    func insert(hashes: (UInt64, UInt64)) -> Bool {
        var seen = true
        _ = probe(hashes) { word, flag in
            if word.pointee & flag == 0 {
                seen = false
                word.pointee |= flag
            }
            return true
        }
        return seen
    }

    /// Whether a uuid with these `hashes` was perhaps recorded (nothing is recorded).
    func contains(hashes: (UInt64, UInt64)) -> Bool {
        probe(hashes) { word, flag in word.pointee & flag != 0 }
    }

    /// Visits the word and bit of each of the uuid's probes, all in one 512-bit block, while
    /// `visit` returns true; returns whether it did for every probe.
    @inline(__always)
    private func probe(_ hashes: (UInt64, UInt64), _ visit: (UnsafeMutablePointer<UInt64>, UInt64) -> Bool) -> Bool {
        let block = words + Int(truncatingIfNeeded: (hashes.0 & mask) >> 9) << 3
        var h = hashes.1
        for _ in 0..<UUIDFilter.probes {
            let bit = h & 511
            guard visit(block + Int(bit >> 6), UInt64(1) << (bit & 63)) else { return false }
            h >>= 9
        }
        return true
    }

    /// Two independent 64-bit hashes of the uuid (double hashing gives the probes): of its key
    /// when it is canonical, else of its bytes.
    static func hashes(_ uuid: String) -> (UInt64, UInt64) {
        if let key = UUIDKey(uuid) { return hashes(key: key) }
        return hashes(text: uuid)
    }

    /// The hashes of a canonical uuid, from its 16 bytes.
    @inline(__always) static func hashes(key: UUIDKey) -> (UInt64, UInt64) {
        var a = key.high ^ (key.low &* 0x9E37_79B9_7F4A_7C15)
        a ^= a >> 33
        a = a &* 0xFF51_AFD7_ED55_8CCD
        a ^= a >> 33
        var b = key.low ^ (key.high &* 0xC2B2_AE3D_27D4_EB4F)
        b ^= b >> 29
        b = b &* 0xC4CE_B9FE_1A85_EC53
        b ^= b >> 32
        return (a, b | 1)
    }

    /// The hashes of any other text, from its bytes.
    static func hashes(text uuid: String) -> (UInt64, UInt64) {
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
