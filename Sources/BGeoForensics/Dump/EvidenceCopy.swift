import Foundation

/// One input file as received: where it was, how big, and its SHA-256 at the time we read it.
public struct DumpInput: Sendable, Equatable {
    public let path: String
    public let bytes: Int64
    public let sha256: String
}

/// A private copy of a dump and its `-wal` (never the `-shm`: SQLite rebuilds the WAL index
/// from the WAL itself). The evidence files are only ever opened for reading; everything SQLite
/// does (WAL recovery, checkpoint on close) happens to the copy, which is deleted when this value
/// goes away. The copy is made in the kernel (a fraction of a second for a gigabyte); the inputs
/// are hashed on a second thread meanwhile and after, so reading the copy need not wait for the
/// SHA-256 — `inputs` does.
public final class EvidenceCopy: @unchecked Sendable {
    /// Path of the private database copy to open.
    public let copyPath: String
    /// The inputs as found (the database first, then its -wal and -shm if present), with their
    /// sizes; the hashes come with `inputs`.
    public let files: [(path: String, bytes: Int64)]
    private let directory: String
    /// The private working folder that holds the copy: where work files that must not outlive the
    /// process (the streamed trace's spill files) belong, removed with it.
    var workingFolder: String { directory }
    private let hashing: BackgroundWork<(inputs: [DumpInput], failure: DumpError?)>

    /// The inputs with their SHA-256 (waits for the hashing thread the first time). A file that
    /// could not be read a second time keeps its size and says why instead of a hash; `hashFailure`
    /// then tells the reason.
    public var inputs: [DumpInput] { hashing.wait().inputs }
    /// Why an input could not be hashed, if one could not (nil in every normal case).
    public var hashFailure: DumpError? { hashing.wait().failure }

    public init(path: String) throws(DumpError) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .missing(path: path) }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "it is a directory") }
        let present = [path] + ["-wal", "-shm"].map { path + $0 }.filter { fm.fileExists(atPath: $0) }
        // Hashing starts at once, beside the copy: both read the same pages.
        hashing = EvidenceCopy.startHashing(present)
        let dir = fm.temporaryDirectory.appendingPathComponent("bgeo-forensics-\(UUID().uuidString)").path
        do {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                   attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unreadable(path: path, reason: "cannot create a private working folder: \(error.localizedDescription)")
        }
        directory = dir
        copyPath = dir + "/dump.db"
        var sizes: [(path: String, bytes: Int64)] = []
        do {
            for source in present {
                // -shm is hashed as evidence but not copied; see the type comment.
                if source.hasSuffix("-shm") {
                    sizes.append((source, try EvidenceCopy.size(of: source)))
                } else {
                    let destination = source == path ? copyPath : copyPath + "-wal"
                    sizes.append((source, try EvidenceCopy.copy(from: source, to: destination)))
                }
            }
        } catch {
            try? fm.removeItem(atPath: dir)
            throw error
        }
        files = sizes
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Hashes every input in order on its own thread. A file that cannot be read keeps its size
    /// and says why in place of a hash; the first such error is returned too.
    private static func startHashing(_ paths: [String]) -> BackgroundWork<(inputs: [DumpInput], failure: DumpError?)> {
        hashesAtExit.begin()
        return BackgroundWork {
            defer { hashesAtExit.end() }
            var inputs: [DumpInput] = []
            var failure: DumpError?
            for path in paths {
                do throws(DumpError) {
                    inputs.append(try hash(path))
                } catch {
                    failure = failure ?? error
                    let bytes = (try? size(of: path)) ?? 0
                    inputs.append(DumpInput(path: path, bytes: bytes, sha256: "not computed (\(error.description))"))
                }
            }
            return (inputs, failure)
        }
    }

    /// A process that exits while a hash is running would tear OpenSSL down under the hashing
    /// thread (OpenSSL's own exit handler frees what the thread is using). This counts the running
    /// hashes and, at exit, waits for them. OpenSSL is started before this handler is registered,
    /// so its handler is registered first, and exit handlers run in reverse: the hashes finish,
    /// then OpenSSL cleans up.
    private final class RunningHashes: @unchecked Sendable {
        private var count = 0
        private let condition = NSCondition()
        private static let waitAtExit: Void = {
            _ = SHA256Hasher.hex(of: "")
            atexit { EvidenceCopy.hashesAtExit.waitUntilNone() }
        }()

        func begin() {
            RunningHashes.waitAtExit
            condition.lock()
            count += 1
            condition.unlock()
        }

        func end() {
            condition.lock()
            count -= 1
            if count == 0 { condition.broadcast() }
            condition.unlock()
        }

        func waitUntilNone() {
            condition.lock()
            while count > 0 { condition.wait() }
            condition.unlock()
        }
    }
    private static let hashesAtExit = RunningHashes()

    static func size(of path: String) throws(DumpError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        return Int64(info.st_size)
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

    /// Copies `source` to `destination`; returns the bytes copied.
    private static func copy(from source: String, to destination: String) throws(DumpError) -> Int64 {
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard output >= 0 else {
            throw .unreadable(path: source, reason: "cannot write the private copy: \(String(cString: strerror(errno)))")
        }
        defer { close(output) }
        if let copied = try copyInKernel(from: source, to: output) { return copied }
        var total: Int64 = 0
        try readChunks(source) { chunk throws(DumpError) in
            total += Int64(chunk.count)
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
        return total
    }

    /// Copies with `sendfile` (file to file on Linux): the bytes never pass through a user buffer,
    /// which halves the copy's cost on a gigabyte dump. Returns the bytes copied, or nil (nothing
    /// written) when the kernel refuses this pair of files: the caller then copies through a buffer.
    private static func copyInKernel(from source: String, to output: Int32) throws(DumpError) -> Int64? {
        let input = open(source, O_RDONLY)
        guard input >= 0 else { throw .unreadable(path: source, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        var offset: off_t = 0
        while true {
            let n = sendfile(output, input, &offset, 1 << 30)
            if n > 0 { continue }
            if n == 0 { return Int64(offset) }
            if errno == EINTR { continue }
            if offset == 0, errno == EINVAL || errno == ENOSYS { return nil }
            throw .unreadable(path: source, reason: "cannot write the private copy: \(String(cString: strerror(errno)))")
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
        try hash(path).sha256
    }
}
