import Foundation

/// A main file cut short (a pull interrupted, a disk full): SQLite refuses the whole file when
/// its header promises more pages than the file holds ("database disk image is malformed"),
/// although every page before the cut is intact. The private copy is made consistent instead —
/// cut to its last whole page (a partial page would read as garbage rows) and its in-header page
/// count set to what is left — so SQLite opens it, every table reads up to its first missing
/// page, and the scans step over what is gone (`Dump.scanRows`). The evidence is never touched.
package struct TruncatedCopy {
    /// Bytes the header promised, when it can be believed.
    let declaredBytes: Int64?
    let fileBytes: Int64
    /// Bytes known to be missing: up to the declared size, or to the end of the page the file ends in
    /// (the partial page itself is not read).
    let missingBytes: Int64
    let pageSize: Int

    /// Repairs `copyPath` when the file was cut; nil when it is whole (nothing is changed then).
    static func repair(copyPath: String, originalPath: String, header: DatabaseHeader, fileBytes: Int64) throws(DumpError) -> TruncatedCopy? {
        guard let repaired = TruncatedCopy(header: header, fileBytes: fileBytes) else { return nil }
        let pageSize = Int64(header.pageSize)
        let pages = fileBytes / pageSize
        guard pages > 0 else {
            throw .damaged(path: originalPath, reason: repaired.description + ", and its first page (the schema) is not whole")
        }
        let fd = open(copyPath, O_RDWR | O_CLOEXEC)
        // Failing to write the copy (ours) is the machine's failure, not the dump's.
        guard fd >= 0 else {
            throw .environment(path: originalPath, reason: "its private copy cannot be repaired (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var count = UInt32(truncatingIfNeeded: pages).bigEndian
        guard ftruncate(fd, off_t(pages * pageSize)) == 0,
              withUnsafeBytes(of: &count, { pwrite(fd, $0.baseAddress, 4, 28) }) == 4 else {
            throw .environment(path: originalPath, reason: "its private copy cannot be repaired (\(String(cString: strerror(errno))))")
        }
        return repaired
    }

    /// What is missing from a file of `fileBytes` with this header; nil when it is whole.
    init?(header: DatabaseHeader, fileBytes: Int64) {
        let pageSize = Int64(header.pageSize)
        let declared = header.pageCountIsValid ? Int64(header.pageCount) * pageSize : nil
        let remainder = fileBytes % pageSize
        let missing: Int64
        if let declared, declared > fileBytes {
            missing = declared - fileBytes
        } else if declared == nil, remainder > 0 {
            missing = pageSize - remainder
        } else {
            return nil
        }
        declaredBytes = declared
        self.fileBytes = fileBytes
        missingBytes = missing
        self.pageSize = header.pageSize
    }

    /// "truncated: …" for the warning (and for the error when not even the schema can be read).
    var description: String {
        let pages = (missingBytes + Int64(pageSize) - 1) / Int64(pageSize)
        if let declaredBytes {
            return "truncated: its header says \(declaredBytes) bytes but the file holds \(fileBytes); the last \(missingBytes) bytes "
                + "(\(pages) page\(pages == 1 ? "" : "s") of \(pageSize)) are missing"
        }
        return "truncated inside a page: the file holds \(fileBytes) bytes, \(missingBytes) short of a whole page of \(pageSize)"
    }
}

extension Dump {
    /// The tables whose pages are not all there: SQLite's `dbstat` walks each table's b-tree
    /// (through the WAL, which may hold the missing pages) and marks a page past the cut
    /// "corrupted" (or fails outright).
    func tablesReachingMissingPages() -> [String] {
        var damaged: [String] = []
        for table in layout.tables where !table.hasPrefix("sqlite_") {
            do {
                let stmt = try database.prepare("SELECT count(*) FROM dbstat WHERE name = ? AND pagetype = 'corrupted'")
                try stmt.bind([.text(table)])
                if try stmt.step(), stmt.int64(0) > 0 { damaged.append(table) }
            } catch {
                damaged.append(table)
            }
        }
        return damaged
    }
}
