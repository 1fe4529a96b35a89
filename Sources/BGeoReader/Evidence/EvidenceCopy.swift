import Foundation
import BGeoSQLite

/// One input file as received: where it was, how big, and its SHA-256 at the time we read it.
public struct DumpInput: Sendable, Equatable {
    public let path: String
    public let bytes: Int64
    public let sha256: String
}

/// The evidence as the reader reads it. A whole dump with neither a `-wal` nor a `-journal` is
/// read where it lies, through the descriptor this value holds (`readsInPlace`): read-only,
/// immutable (`Database.Mode.evidence`: no lock, no journal, nothing written), by a path that
/// stays that descriptor's file (`/proc/self/fd/N`), so nothing is copied. Any other dump is
/// copied — with its `-wal` and its `-journal`, never the `-shm` (SQLite rebuilds the WAL index
/// from the WAL itself; a hot journal is rolled back in the copy, see `HotJournal`; a cut file is
/// made consistent, see `TruncatedCopy`) — and SQLite recovers, rolls back and reads the copy.
/// The evidence files are only ever opened for reading, and only when they
/// are regular files (a FIFO or a device would block the read forever, or never end); everything
/// SQLite does (journal rollback, WAL recovery, checkpoint on close) happens to the copy. The
/// copy, like every work file, lives in a `PrivateFolder` — in `$TMPDIR`, or in a folder the caller chose (resync keeps it inside its
/// working folder) — which goes away with this value, at exit, or on a signal, and is swept by
/// the next run after a kill -9. The copy is made in the kernel (a fraction of a second for a
/// gigabyte); the inputs are hashed on a second thread meanwhile and after, so reading the copy
/// need not wait for the SHA-256 — `inputs` does.
public final class EvidenceCopy: Sendable {
    /// Path of the file the reader opens: the private copy, or the held descriptor of a dump read in place.
    public let copyPath: String
    /// True when the dump is read where it lies (nothing copied); see the type comment.
    public let readsInPlace: Bool
    /// The evidence descriptor a dump read in place is read through (open as long as this value).
    private let held: HeldDescriptor?
    /// The inputs as found (the database first, then its -wal, -shm and -journal if present),
    /// with their sizes; the hashes come with `inputs`.
    public let files: [(path: String, bytes: Int64)]
    /// A -wal, -shm or -journal beside the dump that is not a regular file, with why: not read, not copied.
    public let ignored: [(path: String, reason: String)]
    private let folder: PrivateFolder
    private let hashing: BackgroundWork<(inputs: [DumpInput], failure: DumpError?)>

    /// The inputs with their SHA-256 (waits for the hashing thread the first time). A file that
    /// could not be read a second time keeps its size and says why instead of a hash; `hashFailure`
    /// then tells the reason.
    public var inputs: [DumpInput] { hashing.wait().inputs }
    /// Why an input could not be hashed, if one could not (nil in every normal case).
    public var hashFailure: DumpError? { hashing.wait().failure }

    /// Makes a new private folder inside `privateParent` (default `$TMPDIR`: the work files go there)
    /// and either keeps `path`'s descriptor to read it in place or copies it (and its -wal and
    /// -journal) into that folder. Throws at once, without reading a byte, when `path` is not a
    /// regular file.
    /// `hashes` false skips the SHA-256 (a second full read of every input) for a command that
    /// reports no hash: `inputs` then gives the sizes and says the hash was not computed.
    /// `inPlace` false copies even a dump that could be read where it lies (tests compare the two).
    public init(path: String, privateParent: String? = nil, hashing inputHashing: InputHashing = .beside, inPlace: Bool = true) throws(DumpError) {
        let main = try EvidenceFile.open(path)
        var keepsMain = false
        defer { if !keepsMain { close(main) } }
        var companions: [(path: String, fd: Int32)] = []
        defer { for companion in companions { close(companion.fd) } }
        var ignored: [(path: String, reason: String)] = []
        for companion in EvidenceCopy.companionSuffixes.map({ path + $0 }) where EvidenceFile.exists(companion) {
            do throws(DumpError) {
                companions.append((companion, try EvidenceFile.open(companion)))
            } catch {
                guard case .notARegularFile(_, let kind) = error else { throw error }
                ignored.append((companion, "it is \(kind), not a regular file, so it was not read"))
            }
        }
        self.ignored = ignored
        let present = [path] + companions.map(\.path)
        // Hashing starts at once, beside the copy: both read the same pages.
        hashing = inputHashing.hashes ? EvidenceCopy.startHashing(present, yielding: inputHashing == .yieldingToReads) : BackgroundWork {
            (present.map { DumpInput(path: $0, bytes: (try? EvidenceCopy.size(of: $0)) ?? 0, sha256: "not computed (not reported by this command)") }, nil)
        }
        let parent = privateParent ?? FileManager.default.temporaryDirectory.path
        do throws(DumpError) { folder = try PrivateFolder(in: parent) } catch {
            // Nothing was read: the machine, not the file, failed (a `fleet` row retried later).
            guard case .environment(_, let reason) = error else { throw error }
            throw .environment(path: path, reason: reason)
        }
        // Read in place: no -wal or -journal to apply, nothing non-regular beside it, and a whole
        // file (a cut one is repaired in a copy). Anything unusual takes the copy's path.
        let alone = ignored.isEmpty && companions.allSatisfy { $0.path.hasSuffix("-shm") }
        if inPlace, alone, let bytes = EvidenceCopy.wholeDatabaseBytes(main, path: path) {
            // A -shm beside it is measured as the copy's path measures it (and fails alike).
            var sizes = [(path: path, bytes: bytes)]
            do throws(DumpError) {
                for companion in companions { sizes.append((companion.path, try EvidenceCopy.size(of: companion.fd, path: companion.path))) }
            } catch {
                folder.remove()
                throw error
            }
            keepsMain = true
            held = HeldDescriptor(main)
            readsInPlace = true
            copyPath = HeldDescriptor.path(of: main)
            files = sizes
            return
        }
        held = nil
        readsInPlace = false
        copyPath = folder.path + "/dump.db"
        var sizes: [(path: String, bytes: Int64)] = []
        do throws(DumpError) {
            sizes.append((path, try EvidenceCopy.copy(main, source: path, to: copyPath, in: parent)))
            for companion in companions {
                // -shm is hashed as evidence but not copied; see the type comment.
                if companion.path.hasSuffix("-shm") {
                    sizes.append((companion.path, try EvidenceCopy.size(of: companion.fd, path: companion.path)))
                } else {
                    let suffix = String(companion.path.dropFirst(path.count))
                    sizes.append((companion.path, try EvidenceCopy.copy(companion.fd, source: companion.path, to: copyPath + suffix, in: parent)))
                }
            }
        } catch {
            folder.remove()
            throw error
        }
        files = sizes
    }

    /// The size of an evidence file that SQLite can read as it is: a database header with a
    /// possible page size and no page missing; nil otherwise (the copy's path says what is wrong).
    private static func wholeDatabaseBytes(_ fd: Int32, path: String) -> Int64? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0, let header = try? DatabaseHeader(descriptor: fd, originalPath: path),
              TruncatedCopy(header: header, fileBytes: Int64(info.st_size)) == nil else { return nil }
        return Int64(info.st_size)
    }

    /// Opens a connection to what the reader reads: the evidence in place (read-only,
    /// immutable), or the private copy (read-write: SQLite recovers a WAL in it; the caller
    /// makes the connection query-only).
    package func openDatabase() throws(SQLiteError) -> Database {
        try Database(path: copyPath, mode: readsInPlace ? .evidence : .readWriteCreate)
    }

    /// The files SQLite may read beside a database, in the order they are listed.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// The private folder's path (its parent is `$TMPDIR` or the folder the caller chose).
    public var privateFolder: String { folder.path }

    /// Removes the private copy now (everything read from it must be finished).
    public func removeCopy() { folder.remove() }

    /// Hashes every input in order on its own thread. A file that cannot be read keeps its size
    /// and says why in place of a hash; the first such error is returned too.
    private static func startHashing(_ paths: [String], yielding: Bool) -> BackgroundWork<(inputs: [DumpInput], failure: DumpError?)> {
        hashesAtExit.begin()
        return BackgroundWork {
            defer { hashesAtExit.end() }
            // Linux keeps a nice value per thread, and `who` 0 names the calling thread only
            // (setpriority(2), NOTES): the reads keep theirs. The thread is this work's own.
            if yielding { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
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
    private final class RunningHashes: Sendable {
        private let count = ConditionState(0)
        private static let waitAtExit: Void = {
            _ = SHA256Hasher.hex(of: "")
            atexit { EvidenceCopy.hashesAtExit.waitUntilNone() }
        }()

        func begin() {
            RunningHashes.waitAtExit
            count.change { $0 += 1 }
        }

        func end() {
            count.change { $0 -= 1 }
        }

        func waitUntilNone() {
            count.read(when: { $0 == 0 }) { _ in () }
        }
    }
    private static let hashesAtExit = RunningHashes()

    static func size(of path: String) throws(DumpError) -> Int64 {
        var info = stat()
        guard RawPath.stat(path, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        return Int64(info.st_size)
    }

    private static func size(of fd: Int32, path: String) throws(DumpError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        return Int64(info.st_size)
    }

    private static func hash(_ source: String) throws(DumpError) -> DumpInput {
        let input = try EvidenceFile.open(source)
        defer { close(input) }
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        try readChunks(input, source: source) { chunk throws(DumpError) in
            hasher.update(chunk)
            total += Int64(chunk.count)
        }
        return DumpInput(path: source, bytes: total, sha256: hasher.finalizeHex())
    }

    /// Copies the open evidence file `input` to `destination` (a private copy inside `folder`);
    /// returns the bytes copied. A copy that cannot be created or written (a full, read-only or
    /// refused folder) says nothing about the dump: `environment`, naming the folder the user can
    /// change. A read of the evidence that fails is the file's problem, as everywhere.
    private static func copy(_ input: Int32, source: String, to destination: String, in folder: String) throws(DumpError) -> Int64 {
        func cannotWrite(_ code: Int32) -> DumpError { .environment(path: source, reason: DumpError.copyReason(in: folder, code)) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw cannotWrite(errno) }
        defer { close(output) }
        if let copied = try copyInKernel(from: input, to: output, cannotWrite) { return copied }
        var total: Int64 = 0
        try readChunks(input, source: source) { chunk throws(DumpError) in
            total += Int64(chunk.count)
            var written = 0
            while written < chunk.count {
                let w = write(output, chunk.baseAddress! + written, chunk.count - written)
                if w < 0 {
                    if errno == EINTR { continue }
                    throw cannotWrite(errno)
                }
                written += w
            }
        }
        return total
    }

    /// Copies with `sendfile` (file to file on Linux): the bytes never pass through a user buffer,
    /// which halves the copy's cost on a gigabyte dump. Returns the bytes copied, or nil when the
    /// copy must go through a buffer: the kernel refuses this pair of files, or it failed in a way
    /// that does not say which side failed (EIO: a bad evidence disk or a bad $TMPDIR) — the
    /// buffered copy starts again and tells a read of the evidence from a write of the copy.
    private static func copyInKernel(from input: Int32, to output: Int32,
                                     _ cannotWrite: (Int32) -> DumpError) throws(DumpError) -> Int64? {
        var offset: off_t = 0
        while true {
            let n = sendfile(output, input, &offset, 1 << 30)
            if n > 0 { continue }
            if n == 0 { return Int64(offset) }
            if errno == EINTR { continue }
            // Only the copy's side can be full, read-only or too big.
            if [ENOSPC, EDQUOT, EROFS, EFBIG].contains(errno) { throw cannotWrite(errno) }
            guard offset == 0 || (ftruncate(output, 0) == 0 && lseek(output, 0, SEEK_SET) == 0) else { throw cannotWrite(errno) }
            return nil
        }
    }

    /// Reads an open file in 1 MiB chunks with `pread` (the descriptor's offset is left alone).
    private static func readChunks(_ input: Int32, source: String,
                                   _ body: (UnsafeRawBufferPointer) throws(DumpError) -> Void) throws(DumpError) {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let n = pread(input, buffer.baseAddress, chunk, offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw EvidenceFile.failure(source, errno)
            }
            if n == 0 { return }
            offset += off_t(n)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// SHA-256 of a file, without copying it (tests and re-sync use it to prove evidence unchanged).
    public static func sha256(ofFile path: String) throws(DumpError) -> String {
        try hash(path).sha256
    }
}
