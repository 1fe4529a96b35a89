import BGeoForensics
import Foundation

/// SQLite stamps every WAL with random salts (and checksums chained from them), so two runs
/// writing the same rows give different `-wal` bytes. The simulator promises byte-identical
/// samples, so it rewrites the salts from its seed and recomputes every checksum exactly as
/// SQLite defines them (https://www.sqlite.org/fileformat2.html#walformat). Frames that do not
/// belong to the current WAL generation are left untouched (SQLite ignores them either way).
enum WALNormalizer {
    enum Failure: Error, CustomStringConvertible {
        case notAWAL(String)
        var description: String {
            switch self { case .notAWAL(let path): return "\(path) is not a SQLite WAL file" }
        }
    }

    static func normalize(path: String, salt1: UInt32, salt2: UInt32) throws {
        guard let data = FileManager.default.contents(atPath: path) else { return }
        var bytes = [UInt8](data)
        guard bytes.count >= 32 else {
            if bytes.isEmpty { return }
            throw Failure.notAWAL(path)
        }
        let magic = read32(bytes, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { throw Failure.notAWAL(path) }
        let bigEndianSum = magic == 0x377F_0683
        let pageSize = Int(read32(bytes, 8))
        let oldSalt1 = read32(bytes, 16), oldSalt2 = read32(bytes, 20)
        write32(&bytes, 16, salt1)
        write32(&bytes, 20, salt2)
        var (s0, s1) = checksum(bytes, 0, 24, bigEndian: bigEndianSum, s0: 0, s1: 0)
        write32(&bytes, 24, s0)
        write32(&bytes, 28, s1)
        var offset = 32
        let frameSize = 24 + pageSize
        while offset + frameSize <= bytes.count {
            guard read32(bytes, offset + 8) == oldSalt1, read32(bytes, offset + 12) == oldSalt2 else { break }
            write32(&bytes, offset + 8, salt1)
            write32(&bytes, offset + 12, salt2)
            (s0, s1) = checksum(bytes, offset, 8, bigEndian: bigEndianSum, s0: s0, s1: s1)
            (s0, s1) = checksum(bytes, offset + 24, pageSize, bigEndian: bigEndianSum, s0: s0, s1: s1)
            write32(&bytes, offset + 16, s0)
            write32(&bytes, offset + 20, s1)
            offset += frameSize
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func read32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func write32(_ b: inout [UInt8], _ i: Int, _ v: UInt32) {
        b[i] = UInt8(v >> 24)
        b[i + 1] = UInt8(truncatingIfNeeded: v >> 16)
        b[i + 2] = UInt8(truncatingIfNeeded: v >> 8)
        b[i + 3] = UInt8(truncatingIfNeeded: v)
    }

    /// SQLite's WAL checksum over `count` bytes (a multiple of 8) starting at `start` (the
    /// reader's implementation, `WALCheck.checksum`).
    static func checksum(_ b: [UInt8], _ start: Int, _ count: Int, bigEndian: Bool, s0: UInt32, s1: UInt32) -> (UInt32, UInt32) {
        WALCheck.checksum(b[start..<(start + count)], bigEndian: bigEndian, seed: (s0, s1))
    }
}
