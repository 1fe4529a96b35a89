import Foundation

/// The fields of an SQLite file's 100-byte header the reader relies on
/// (https://www.sqlite.org/fileformat2.html#the_database_header), read from the private copy
/// before SQLite is asked anything, so a zip, a text file or a cut file gets a plain answer.
struct DatabaseHeader {
    /// The first page as far as the file holds it (at least the 100 header bytes).
    let firstPage: [UInt8]
    let pageSize: Int
    /// Pages the header says the database has (offset 28); trust it only when `pageCountIsValid`.
    let pageCount: UInt32
    /// File change counter (offset 24): bumped by every transaction that writes page 1.
    let changeCounter: UInt32
    /// True when "version-valid-for" (offset 92) matches the change counter: the in-header page
    /// count was written by the same transaction and can be believed.
    let pageCountIsValid: Bool

    static let magic = Array("SQLite format 3\0".utf8)

    /// Reads the header of `copyPath` (what the reader reads: the private copy, or the held
    /// evidence descriptor's path; `originalPath` names the evidence in errors).
    init(copyPath: String, originalPath: String) throws(DumpError) {
        let fd = open(copyPath, O_RDONLY | O_CLOEXEC)
        // The copy is ours: failing to open it is the machine's failure (no descriptor left), not the dump's.
        guard fd >= 0 else {
            throw .environment(path: originalPath, reason: "its private copy cannot be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        try self.init(descriptor: fd, originalPath: originalPath)
    }

    /// Reads the header from an open descriptor (left open).
    init(descriptor fd: Int32, originalPath: String) throws(DumpError) {
        var head = [UInt8](repeating: 0, count: 100)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 100, 0) }
        guard n >= 16, Array(head[0..<16]) == DatabaseHeader.magic else { throw .notADatabase(path: originalPath) }
        guard n == 100 else { throw .damaged(path: originalPath, reason: "the file ends inside the 100-byte header") }
        let raw = Int(head[16]) << 8 | Int(head[17])
        let size = raw == 1 ? 65_536 : raw
        guard size >= 512, size <= 65_536, size & (size - 1) == 0 else {
            throw .damaged(path: originalPath, reason: "its header names an impossible page size (\(raw))")
        }
        pageSize = size
        pageCount = DatabaseHeader.read32(head, 28)
        changeCounter = DatabaseHeader.read32(head, 24)
        pageCountIsValid = changeCounter == DatabaseHeader.read32(head, 92) && pageCount > 0
        var page = [UInt8](repeating: 0, count: size)
        let got = page.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, 0) }
        firstPage = Array(page.prefix(max(100, got)))
    }

    static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// Header bytes that no transaction of the same database changes once set: page size,
    /// reserved bytes, payload fractions (16–23 but the read/write versions), then — zero until
    /// the first table, or the first `PRAGMA application_id` — schema format (44), text encoding
    /// (56), application id (68). A WAL's page 1 that differs here belongs to another database.
    static let fixedRanges: [Range<Int>] = [16..<18, 20..<24]
    static let setOnceRanges: [Range<Int>] = [44..<48, 56..<60, 68..<72]

    /// The first stable range where `image` (another page 1) differs from this header, if any.
    func stableMismatch(_ image: [UInt8]) -> Range<Int>? {
        guard image.count >= 100 else { return nil }
        if let range = DatabaseHeader.fixedRanges.first(where: { !image[$0].elementsEqual(firstPage[$0]) }) { return range }
        return DatabaseHeader.setOnceRanges.first { range in
            !firstPage[range].allSatisfy { $0 == 0 } && !image[range].elementsEqual(firstPage[range])
        }
    }
}
