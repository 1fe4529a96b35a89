import Foundation

/// Opening an input as evidence: only a regular file (or a symlink to one) is ever read. A FIFO
/// would block the first read forever, a device (`/dev/zero`) never ends, a socket cannot be
/// opened at all; each is refused at once, before a byte is read, with what it is.
package enum EvidenceFile {
    /// True when something (of any kind) is at `path`, following symlinks.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// A read-only descriptor for the regular file at `path`. Opened non-blocking, so even a file
    /// swapped for a FIFO after the check cannot block; then checked again on the descriptor.
    static func open(_ path: String) throws(DumpError) -> Int32 {
        var info = stat()
        guard RawPath.stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .missing(path: path) }
            throw failure(path, errno)
        }
        try requireRegular(info, path: path)
        let fd = RawPath.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw failure(path, errno) }
        var opened = stat()
        guard fstat(fd, &opened) == 0 else {
            close(fd)
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        do throws(DumpError) { try requireRegular(opened, path: path) } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Why `path` could not be opened: the process's own limits (no descriptor or memory left)
    /// say nothing about the file, so they are `environment`; anything else is the file's.
    static func failure(_ path: String, _ code: Int32) -> DumpError {
        let reason = String(cString: strerror(code))
        guard DumpError.isExhaustion(code) else { return .unreadable(path: path, reason: reason) }
        return .environment(path: path, reason: "this process cannot open it (\(reason))")
    }

    private static func requireRegular(_ info: stat, path: String) throws(DumpError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw .unreadable(path: path, reason: "it is a directory")
        case S_IFIFO: throw .notARegularFile(path: path, kind: "a named pipe (FIFO)")
        case S_IFSOCK: throw .notARegularFile(path: path, kind: "a socket")
        case S_IFCHR: throw .notARegularFile(path: path, kind: "a character device")
        case S_IFBLK: throw .notARegularFile(path: path, kind: "a block device")
        default: throw .notARegularFile(path: path, kind: "not a file")
        }
    }
}
