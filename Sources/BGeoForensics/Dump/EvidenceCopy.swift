import Foundation

/// One input file as received: where it was, how big, and its SHA-256 at the time we read it.
public struct DumpInput: Sendable, Equatable {
    public let path: String
    public let bytes: Int64
    public let sha256: String
}

/// A private copy of a dump and its `-wal` (never the `-shm`: SQLite rebuilds the WAL index
/// from the WAL itself), made in one streaming pass that also hashes each input. The evidence
/// files are only ever opened for reading; everything SQLite does (WAL recovery, checkpoint on
/// close) happens to the copy, which is deleted when this value goes away.
public final class EvidenceCopy: @unchecked Sendable {
    /// The inputs as found: the database first, then its -wal and -shm if present.
    public let inputs: [DumpInput]
    /// Path of the private database copy to open.
    public let copyPath: String
    private let directory: String

    public init(path: String) throws(DumpError) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .missing(path: path) }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "it is a directory") }
        let dir = fm.temporaryDirectory.appendingPathComponent("bgeo-forensics-\(UUID().uuidString)").path
        do {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                   attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unreadable(path: path, reason: "cannot create a private working folder: \(error.localizedDescription)")
        }
        directory = dir
        copyPath = dir + "/dump.db"
        var found: [DumpInput] = []
        do {
            found.append(try EvidenceCopy.copyAndHash(from: path, to: copyPath))
            for suffix in ["-wal", "-shm"] where fm.fileExists(atPath: path + suffix) {
                // -shm is hashed as evidence but not copied; see the type comment.
                let destination = suffix == "-wal" ? copyPath + suffix : nil
                found.append(try EvidenceCopy.copyAndHash(from: path + suffix, to: destination))
            }
        } catch {
            try? fm.removeItem(atPath: dir)
            throw error
        }
        inputs = found
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Hashes `source` and, when `destination` is given, writes the same bytes there. The copy
    /// runs on a second thread while this one hashes: both read the same pages, so the two passes
    /// cost about one.
    static func copyAndHash(from source: String, to destination: String?) throws(DumpError) -> DumpInput {
        final class CopyOutcome: @unchecked Sendable { var error: DumpError? }
        let outcome = CopyOutcome()
        let group = DispatchGroup()
        if let destination {
            group.enter()
            Thread.detachNewThread {
                do throws(DumpError) { try copy(from: source, to: destination) } catch { outcome.error = error }
                group.leave()
            }
        }
        let hashed = Result { () throws(DumpError) -> DumpInput in try hash(source) }
        group.wait()
        if let error = outcome.error { throw error }
        return try hashed.get()
    }

    private static func hash(_ source: String) throws(DumpError) -> DumpInput {
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        try readChunks(source) { chunk throws(DumpError) in
            hasher.update(chunk)
            total += Int64(chunk.count)
        }
        return DumpInput(path: source, bytes: total, sha256: hasher.finalizeHex())
    }

    private static func copy(from source: String, to destination: String) throws(DumpError) {
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard output >= 0 else {
            throw .unreadable(path: source, reason: "cannot write the private copy: \(String(cString: strerror(errno)))")
        }
        defer { close(output) }
        try readChunks(source) { chunk throws(DumpError) in
            var written = 0
            while written < chunk.count {
                let w = write(output, chunk.baseAddress! + written, chunk.count - written)
                if w < 0 {
                    if errno == EINTR { continue }
                    throw .unreadable(path: source, reason: "cannot write the private copy: \(String(cString: strerror(errno)))")
                }
                written += w
            }
        }
    }

    /// Reads a file in 1 MiB chunks, opened read-only.
    private static func readChunks(_ source: String, _ body: (UnsafeRawBufferPointer) throws(DumpError) -> Void) throws(DumpError) {
        let input = open(source, O_RDONLY)
        guard input >= 0 else {
            throw .unreadable(path: source, reason: String(cString: strerror(errno)))
        }
        defer { close(input) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: source, reason: String(cString: strerror(errno)))
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// SHA-256 of a file, without copying it (tests and re-sync use it to prove evidence unchanged).
    public static func sha256(ofFile path: String) throws(DumpError) -> String {
        try copyAndHash(from: path, to: nil).sha256
    }
}
