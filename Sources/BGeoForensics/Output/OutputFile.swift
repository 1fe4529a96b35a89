import BGeoReader
import Foundation
import BGeoSQLite

/// The one door every file a command writes goes through (report, gpx, export, sanitize,
/// simulate, resync's quarantine export, fleet's rows and findings):
/// - a target that *is* evidence — an input dump, its `-wal` / `-shm` / `-journal`, or any hard
///   or symbolic link to them (`EvidenceSet`) — is refused before anything is opened for writing;
/// - the content goes to a hidden temporary file in the target's own folder (registered with
///   `SignalCleanup` from when it is written, so a signal or an exit removes it) and is renamed into place only once it
///   is whole and on disk: a full disk, a failed write or Ctrl-C never leaves a file cut short,
///   and never touches an old file of that name until the new one is complete;
/// - every failure (missing folder, read-only, permission, full disk, `-o` naming a folder) is
///   one `FileProblem` sentence naming the path the user gave and the reason (exit 2); no temporary
///   name and no library text reaches the user.
/// `-` is standard output: nothing is checked or renamed.
public final class OutputFile {
    /// The target as the user named it (shown in messages).
    public let path: String
    /// Where writers write: the temporary file, or "-" for standard output.
    public let writePath: String
    /// The target with symbolic links followed: what the rename replaces.
    private let finalPath: String
    /// Suffixes of files a writer makes beside `writePath` that travel with it (`-wal`).
    private let companions: [String]
    private var slots: [Int] = []
    private var finished = false

    /// True for `-`.
    public var isStandardOutput: Bool { writePath == "-" }

    /// Checks `path` against `evidence` and makes its temporary file. `companions`: suffixes of
    /// side files the writer may create beside the temporary file (renamed along, and checked
    /// against the evidence under the target's name too).
    public init(_ path: String, protecting evidence: EvidenceSet, companions: [String] = []) throws(FileProblem) {
        self.path = path
        self.companions = companions
        guard path != "-" else {
            writePath = "-"
            finalPath = "-"
            return
        }
        guard !path.isEmpty else { throw FileProblem(path: path, reason: "no file name was given") }
        var isDirectory: ObjCBool = false
        if path.hasSuffix("/") || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw FileProblem(path: path, reason: "it is a folder; give a file name")
        }
        for (name, suffix) in [(path, "")] + companions.map({ (path + $0, $0) }) {
            if let file = evidence.evidenceFile(at: name) {
                let what = suffix.isEmpty ? "it" : "its \(suffix) file \(name)"
                let sameName = URL(fileURLWithPath: name).standardizedFileURL.path == URL(fileURLWithPath: file).standardizedFileURL.path
                let link = sameName ? "is" : "is another name (a hard or symbolic link) for"
                throw FileProblem(path: path, reason: "\(what) \(link) the evidence file \(file), which is only ever read; choose another output")
            }
        }
        finalPath = EvidenceSet.resolve(path)
        let folder = (finalPath as NSString).deletingLastPathComponent
        let shownFolder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw FileProblem(path: path, reason: "the folder \(shownFolder) does not exist (create it first)")
        }
        guard isDirectory.boolValue else { throw FileProblem(path: path, reason: "\(shownFolder) is a file, not a folder") }
        let base = (finalPath as NSString).lastPathComponent
        let tag = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let temporary = (folder as NSString).appendingPathComponent(".\(base.prefix(120)).\(tag).tmp")
        // Created and removed at once: an unwritable folder is found now, before any work, and no
        // empty file waits there through a long run (resync writes its export hours later).
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard fd >= 0 else { throw FileProblem(path: path, reason: OutputFile.reason(errno, folder: shownFolder)) }
        close(fd)
        unlink(temporary)
        writePath = temporary
    }

    /// Standard output.
    public static var standardOutput: OutputFile {
        // Cannot fail: "-" is checked for nothing.
        try! OutputFile("-", protecting: .none)
    }

    deinit { if !finished { discard() } }

    /// Runs `body` with the path to write to, then renames the result into place. A write that
    /// failed (`OutputWriteError`) becomes the sentence for this file; any other error is passed
    /// on. Either way nothing is left behind.
    public func write<T>(_ body: (String) throws -> T) throws -> T {
        let result: T
        prepare()
        do {
            result = try body(writePath)
        } catch let failure as OutputWriteError {
            discard()
            throw problem(failure)
        } catch {
            discard()
            throw error
        }
        try commit()
        return result
    }

    /// The sentence for a failed write of this file.
    public func problem(_ failure: OutputWriteError) -> FileProblem {
        let folder = (finalPath as NSString).deletingLastPathComponent
        return FileProblem(path: path, reason: OutputFile.reason(failure.diagnosed(folder: folder), folder: folder))
    }

    /// Registers the temporary file (and companions) for removal on a signal or at exit, before
    /// a writer creates it. `write` calls it; a caller that hands `writePath` to a writer itself
    /// (sanitize's `VACUUM INTO`) calls it first.
    public func prepare() {
        guard slots.isEmpty, !isStandardOutput, !finished else { return }
        slots = ([writePath] + companions.map { writePath + $0 }).map(SignalCleanup.registerFile)
    }

    /// Flushes the temporary file to disk and renames it (and its companions) over the target.
    public func commit() throws(FileProblem) {
        guard !finished else { return }
        guard !isStandardOutput else {
            finished = true
            return
        }
        let fd = open(writePath, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            let synced = fsync(fd) == 0 || errno == EINVAL
            let code = errno
            close(fd)
            if !synced {
                discard()
                throw FileProblem(path: path, reason: OutputFile.reason(code, folder: nil))
            }
        }
        for suffix in companions {
            if FileManager.default.fileExists(atPath: writePath + suffix) {
                guard rename(writePath + suffix, finalPath + suffix) == 0 else { throw renameFailed() }
            } else {
                _ = unlink(finalPath + suffix)  // a stale side file would be read with the new file
            }
        }
        guard rename(writePath, finalPath) == 0 else { throw renameFailed() }
        finished = true
        slots.forEach(SignalCleanup.unregister)
        let folder = open((finalPath as NSString).deletingLastPathComponent, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    private func renameFailed() -> FileProblem {
        let code = errno
        discard()
        return FileProblem(path: path, reason: OutputFile.reason(code, folder: nil))
    }

    /// Removes the temporary file (and companions): the target is left as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        guard !isStandardOutput else { return }
        _ = unlink(writePath)
        for suffix in companions { _ = unlink(writePath + suffix) }
        slots.forEach(SignalCleanup.unregister)
    }

    /// Writes `bytes` whole to the file at `path` (`-`: standard output), for writers that hold
    /// their output in memory; returns how many.
    public static func writeAll(_ bytes: [UInt8], to path: String) throws(OutputWriteError) -> Int {
        let fd = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw OutputWriteError(code: errno) }
        defer { if fd != STDOUT_FILENO { close(fd) } }
        if let error = bytes.withUnsafeBytes({ FileDescriptorWrite.all(fd, $0) }) { throw OutputWriteError(code: error) }
        return bytes.count
    }

    /// Plain words for an errno met while creating or writing a file in `folder` (the one
    /// wording of every file failure).
    public static func reason(_ code: Int32, folder: String?) -> String {
        switch code {
        case ENOSPC, EDQUOT: return "the disk is full"
        case EROFS: return "the file system is read-only"
        case EACCES, EPERM: return folder.map { "the folder \($0) is not writable (permission denied)" } ?? "permission denied"
        case ENOENT: return folder.map { "the folder \($0) does not exist" } ?? "no such file or folder"
        case ENOTDIR: return "a part of the path is a file, not a folder"
        case EISDIR: return "it is a folder; give a file name"
        case ENAMETOOLONG: return "the name is too long"
        case EIO: return "an input/output error on the disk"
        case EMFILE, ENFILE: return "too many files are open"
        case EPIPE: return "the output was closed before everything was written"
        case 0: return "the file could not be written"
        default: return String(cString: strerror(code)).lowercased()
        }
    }
}

/// A write to an output that failed, with the system's reason (`errno`; 0 when the library that
/// wrote did not say). `OutputFile` turns it into the sentence for the file the user named.
public struct OutputWriteError: Error, Sendable {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    /// SQLite's failure while writing a database file, as the errno it stands for.
    public init(_ error: SQLiteError) {
        switch error.primaryCode {
        case SQLiteError.Code.full: code = ENOSPC
        case SQLiteError.Code.readOnly: code = EROFS
        case SQLiteError.Code.permission, SQLiteError.Code.cannotOpen, SQLiteError.Code.authorization: code = EACCES
        case SQLiteError.Code.ioError: code = 0  // diagnosed (a full disk often reports as an I/O error)
        default: code = EIO
        }
    }

    /// The reason, looked for when the writer could not tell it: a folder with no free blocks
    /// is a full disk.
    func diagnosed(folder: String) -> Int32 {
        guard code == 0 else { return code }
        var info = statvfs()
        if statvfs(folder, &info) == 0, info.f_bavail == 0 { return ENOSPC }
        return 0
    }
}
