import Foundation
import BGeoSQLite

/// A rollback journal (`-journal`) beside the dump. An app killed inside a transaction in
/// rollback-journal mode leaves the main file half-written — pages of the unfinished transaction
/// already in it — and the original pages in the journal. SQLite calls such a journal *hot* and
/// rolls it back the first time a connection with write access takes a lock (a read is enough,
/// `PRAGMA query_only` does not stop it): reading the main file without it would show rows that
/// were never committed. The journal is copied with the dump, and the private copy is rolled back
/// here, by SQLite itself, before anything reads a byte of it (the header checks, the truncation
/// repair and the WAL checks all need the committed file). The evidence journal is never opened
/// for writing.
///
/// Hot, as SQLite decides it (`hasHotJournal` in pager.c): the journal exists, is not empty, its
/// first byte is not zero (a committed journal in PERSIST mode has its header zeroed, one in
/// TRUNCATE mode is empty), the database is not empty, and no connection holds a reserved lock
/// (none can: the copy is private). Everything else SQLite decides during the rollback (a header
/// that is not a journal's, a transaction over several databases) is told apart in the warning.
enum HotJournal {
    /// A journal header's first 8 bytes (pager.c `aJournalMagic`).
    static let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]

    /// Rolls the private copy at `copyPath` back with its copied journal (`copyPath-journal`) when
    /// that journal is hot; returns the warning naming the evidence journal `journalPath`, or nil
    /// when the journal is not hot (it is then left beside the copy, where SQLite ignores it too).
    ///
    /// SQLite rolls a hot journal back before it looks at a WAL; so does this. The rollback runs
    /// on a second name of the copy (`main-only.db`, a hard link, with the journal renamed to match)
    /// so the connection cannot see the copy's -wal: closing it would checkpoint a WAL that has not
    /// been checked yet into the main file.
    static func rollBack(copyPath: String, journalPath: String) -> DumpWarning? {
        let journal = copyPath + "-journal"
        guard let header = Header(path: journal), header.firstByte != 0 else { return nil }
        let walBeside = EvidenceFile.exists(copyPath + "-wal")
        let alone = (copyPath as NSString).deletingLastPathComponent + "/" + PrivateFolder.mainOnlyName
        var target = copyPath
        if link(copyPath, alone) == 0 {
            if rename(journal, alone + "-journal") == 0 { target = alone } else { _ = unlink(alone) }
        }
        readFirstPage(target, keepingWAL: target == copyPath && walBeside)
        let left = EvidenceFile.exists(target + "-journal")
        if target == alone {
            if left { _ = rename(alone + "-journal", journal) }
            for suffix in ["", "-journal", "-wal", "-shm"] { _ = unlink(alone + suffix) }
        }
        // A journal SQLite could not roll back stays: every later connection tries again and
        // fails the same way, so the read ends with SQLite's reason, never on half-written pages.
        guard !left else { return nil }
        return DumpWarning(table: journalPath, rowId: nil, message: header.outcome(walBeside: walBeside))
    }

    /// Opens `path` read-write and reads page 1: taking the shared lock rolls a hot journal back.
    /// `query_only` keeps every statement from writing (it does not stop the rollback). With the
    /// copy's -wal visible, the close must not checkpoint it. The connection closes on return.
    private static func readFirstPage(_ path: String, keepingWAL: Bool) {
        guard let connection = try? Database(path: path, mode: .readWriteCreate) else { return }
        try? connection.execute("PRAGMA query_only = 1")
        if keepingWAL { try? connection.setNoCheckpointOnClose() }
        _ = try? connection.prepare("SELECT count(*) FROM sqlite_master").step()
    }

    /// What SQLite reads of a journal before it rolls it back.
    struct Header {
        let firstByte: UInt8
        let hasMagic: Bool
        /// The super-journal a multi-database transaction names at the journal's end, if any.
        let superJournal: String?

        /// Nil when the file cannot be read or is empty (SQLite: not hot).
        init?(path: String) {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_size > 0 else { return nil }
            var head = [UInt8](repeating: 0, count: 8)
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 8, 0) }
            guard n > 0 else { return nil }
            firstByte = head[0]
            hasMagic = n == 8 && head == HotJournal.magic
            superJournal = Header.superJournal(fd, size: Int64(info.st_size))
        }

        /// pager.c `readSuperJournal`: at the end, the name, its length, its checksum (the sum of
        /// its bytes as C `char`s, signed as on x86-64) and the magic. A wrong checksum means no name.
        private static func superJournal(_ fd: Int32, size: Int64) -> String? {
            guard size >= 16 else { return nil }
            var tail = [UInt8](repeating: 0, count: 16)
            guard tail.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 16, off_t(size - 16)) }) == 16,
                  Array(tail[8..<16]) == HotJournal.magic else { return nil }
            let length = DatabaseHeader.read32(tail, 0)
            guard length > 0, length <= 512, Int64(length) <= size - 16 else { return nil }
            var name = [UInt8](repeating: 0, count: Int(length))
            guard name.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, Int(length), off_t(size - 16 - Int64(length))) }) == Int(length)
            else { return nil }
            var checksum = DatabaseHeader.read32(tail, 4)
            for byte in name { checksum = checksum &- UInt32(bitPattern: Int32(Int8(bitPattern: byte))) }
            let end = name.firstIndex(of: 0) ?? name.count
            guard checksum == 0, end > 0 else { return nil }
            return String(decoding: name[..<end], as: UTF8.self)
        }

        /// The warning for a journal SQLite consumed (rolled back, or discarded unread).
        func outcome(walBeside: Bool) -> String {
            guard hasMagic else {
                return "not a valid journal (its header is not a rollback journal's), so SQLite discarded it unread; "
                    + "the main file is read as it is"
            }
            if let superJournal, !EvidenceFile.exists(superJournal) {
                return "the journal of a transaction over several databases whose super-journal (\(superJournal)) is not here, "
                    + "which SQLite takes as committed: the journal was discarded unread and the main file is read as it is"
            }
            let rolledBack = "a hot journal of an unfinished transaction; its changes were rolled back in the private copy, "
                + "the committed state is read"
            guard walBeside else { return rolledBack }
            return rolledBack + " (a -wal is beside it too, which a database in one journal mode never leaves: "
                + "as SQLite does, the journal was rolled back first, then the -wal applied)"
        }
    }
}
