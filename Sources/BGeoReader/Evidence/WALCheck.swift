import Foundation

/// Decides whether a `-wal` beside a dump belongs to it, by reading the WAL as SQLite's own
/// recovery does (https://www.sqlite.org/fileformat2.html#walformat): header magic, version,
/// page size and header checksum; then frame after frame, each carrying the header's salts and
/// a checksum chained from the previous one, up to the last commit. SQLite stops silently at the
/// first frame that does not match; this says so.
///
/// A WAL names no database (its salts are random, and in WAL mode the main header's change
/// counter does not move), so whether it continues *this* main file is judged from its pages:
/// its page 1 must carry the main file's stable header fields and a schema cookie no older than
/// the main file's, and every b-tree interior page it holds must point at pages (in the WAL or
/// in the main file) of the right kind whose row ids fall between the interior page's keys. A
/// WAL from another database lands its interior pages on the main file's pages and fails this;
/// a WAL that holds no interior page and no page 1 cannot be told apart and is read as the dump's.
package struct WALCheck {
    /// What to do with the WAL.
    enum Verdict: Equatable {
        /// Read it: `frames` committed frames; `discarded` frames after them are not part of the
        /// database (an uncommitted or torn transaction) — worth a warning when not zero.
        case use(frames: Int, discarded: Int)
        /// Nothing in it can be read (empty, or no committed frame): harmless, ignored.
        case empty
        /// Do not let SQLite see it: why.
        case ignore(reason: String)
    }

    static let magicLittleEndian: UInt32 = 0x377F_0682
    static let magicBigEndian: UInt32 = 0x377F_0683
    static let version: UInt32 = 3_007_000

    /// Checks the WAL at `path` (the private copy) against the main file's header.
    static func check(walPath path: String, mainPath: String, main: DatabaseHeader) -> Verdict {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .ignore(reason: "it cannot be read") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .ignore(reason: "it cannot be read") }
        let size = Int64(info.st_size)
        if size == 0 { return .empty }
        var header = [UInt8](repeating: 0, count: 32)
        guard read(fd, &header, 0, 32) else { return .ignore(reason: "it ends inside its 32-byte header") }
        let magic = DatabaseHeader.read32(header, 0)
        guard magic == magicLittleEndian || magic == magicBigEndian else { return .ignore(reason: "it is not an SQLite WAL file") }
        let bigEndian = magic == magicBigEndian
        guard DatabaseHeader.read32(header, 4) == version else {
            return .ignore(reason: "its format version \(DatabaseHeader.read32(header, 4)) is not one SQLite writes")
        }
        let pageSize = Int(DatabaseHeader.read32(header, 8))
        guard pageSize == main.pageSize else {
            return .ignore(reason: "its page size (\(pageSize)) is not the main file's (\(main.pageSize)), so it belongs to another database")
        }
        var sums = checksum(header[0..<24], bigEndian: bigEndian, seed: (0, 0))
        guard sums.0 == DatabaseHeader.read32(header, 24), sums.1 == DatabaseHeader.read32(header, 28) else {
            return .ignore(reason: "its header checksum is wrong")
        }
        let salt1 = DatabaseHeader.read32(header, 16), salt2 = DatabaseHeader.read32(header, 20)
        let frameSize = 24 + pageSize
        let frameSlots = Int((size - 32) / Int64(frameSize))
        var frame = [UInt8](repeating: 0, count: frameSize)
        var valid = 0
        var committed = 0
        // The newest committed frame of each page, and the database size after the last commit.
        var latest: [UInt32: Int64] = [:]
        var pending: [UInt32: Int64] = [:]
        var databasePages: UInt32 = 0
        while valid < frameSlots {
            let offset = 32 + Int64(valid) * Int64(frameSize)
            guard read(fd, &frame, offset, frameSize) else { break }
            let pageNumber = DatabaseHeader.read32(frame, 0)
            guard pageNumber != 0, DatabaseHeader.read32(frame, 8) == salt1, DatabaseHeader.read32(frame, 12) == salt2 else { break }
            sums = checksum(frame[0..<8], bigEndian: bigEndian, seed: sums)
            sums = checksum(frame[24...], bigEndian: bigEndian, seed: sums)
            guard sums.0 == DatabaseHeader.read32(frame, 16), sums.1 == DatabaseHeader.read32(frame, 20) else { break }
            valid += 1
            pending[pageNumber] = offset + 24
            let commitSize = DatabaseHeader.read32(frame, 4)
            if commitSize != 0 {  // a commit frame: the transaction is complete
                committed = valid
                databasePages = commitSize
                latest.merge(pending) { $1 }
                pending = [:]
            }
        }
        // Frames past the last commit that still carry this WAL's salts (an unfinished or torn
        // transaction); frames of an older WAL generation are normal leftovers and not counted.
        var discarded = valid - committed
        var index = valid
        while index < frameSlots, read(fd, &frame, 32 + Int64(index) * Int64(frameSize), 24),
              DatabaseHeader.read32(frame, 8) == salt1, DatabaseHeader.read32(frame, 12) == salt2 {
            discarded += 1
            index += 1
        }
        guard committed > 0 else {
            return frameSlots == 0 && discarded == 0
                ? .empty
                : .ignore(reason: "it holds no complete transaction whose salts and checksums match its header")
        }
        let pages = PageSource(wal: fd, latest: latest, mainPath: mainPath, pageSize: pageSize, databasePages: databasePages)
        if let reason = pages.mismatch(main: main) { return .ignore(reason: reason) }
        return .use(frames: committed, discarded: discarded)
    }

    /// SQLite's WAL checksum over `bytes` (a multiple of 8 long), chained from `seed`.
    package static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var i = bytes.startIndex
        while i + 8 <= bytes.endIndex {
            let x0: UInt32, x1: UInt32
            if bigEndian {
                x0 = UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
                x1 = UInt32(bytes[i + 4]) << 24 | UInt32(bytes[i + 5]) << 16 | UInt32(bytes[i + 6]) << 8 | UInt32(bytes[i + 7])
            } else {
                x0 = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                x1 = UInt32(bytes[i + 4]) | UInt32(bytes[i + 5]) << 8 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 24
            }
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            i += 8
        }
        return (s0, s1)
    }

    /// Reads exactly `count` bytes at `offset`; false on a short read.
    static func read(_ fd: Int32, _ buffer: inout [UInt8], _ offset: Int64, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
}
