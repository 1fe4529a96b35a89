import Foundation

/// Where the sanitised copy goes, checked before any work: never the dump or its side files,
/// never an existing file without `--force`, never beside a stale -wal/-journal that SQLite
/// would apply to it. The working database and the staged copy are hidden files in the same
/// folder, so the final rename is atomic and nothing sits outside the folder the user chose.
struct OutputTarget {
    let path: String
    let folder: String
    /// The database rows are written into (deleted at the end).
    let workPath: String
    /// `VACUUM INTO` writes here; renamed to `path` once verified.
    let stagingPath: String
    /// Stale side files beside `path` that `--force` removes.
    let staleSideFiles: [String]

    static let sideSuffixes = ["-wal", "-shm", "-journal"]

    init(output: String, input: String, force: Bool) throws(SanitizeError) {
        let fm = FileManager.default
        let parent = (output as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .outputFolderMissing(path: output, folder: folder)
        }
        if fm.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue { throw .outputIsDirectory(path: output) }
        let resolvedOutput = OutputTarget.resolve(output)
        let resolvedInput = OutputTarget.resolve(input)
        if resolvedOutput == resolvedInput || OutputTarget.sameFile(output, input) { throw .outputIsInput(path: output) }
        for suffix in OutputTarget.sideSuffixes where resolvedOutput == resolvedInput + suffix || OutputTarget.sameFile(output, input + suffix) {
            throw .outputIsEvidenceSideFile(path: output)
        }
        if fm.fileExists(atPath: output), !force { throw .outputExists(path: output) }
        let stale = OutputTarget.sideSuffixes.map { output + $0 }.filter { fm.fileExists(atPath: $0) }
        if let first = stale.first, !force { throw .sideFileExists(path: first) }
        path = output
        self.folder = folder
        staleSideFiles = stale
        let tag = UUID().uuidString.prefix(8)
        let name = (output as NSString).lastPathComponent
        workPath = (folder as NSString).appendingPathComponent(".\(name).sanitize-\(tag).work")
        stagingPath = (folder as NSString).appendingPathComponent(".\(name).sanitize-\(tag).tmp")
    }

    /// Moves the verified staged copy into place (atomically replacing an old file with --force)
    /// and makes the rename durable.
    func commit() throws(SanitizeError) {
        for side in staleSideFiles { unlink(side) }
        guard rename(stagingPath, path) == 0 else {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        let descriptor = open(folder, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    /// The absolute path with the folder's symbolic links resolved (the file may not exist yet).
    static func resolve(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent().resolvingSymlinksInPath().path
        let name = url.lastPathComponent
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) {
            return URL(fileURLWithPath: target, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path
        }
        return (folder as NSString).appendingPathComponent(name)
    }

    /// Same device and inode (a hard link, a bind mount, a symbolic link).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}
