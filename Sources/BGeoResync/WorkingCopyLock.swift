import BGeoForensics
import Foundation

/// Exactly one resync run per working copy: an exclusive `flock` on `<work folder>/lock`, taken
/// before the copy is looked for or created, held until the process ends. The kernel releases
/// it however the process ends (kill -9 included), so a crashed run never wedges the folder.
/// Two runs that create the same new folder at the same moment meet here first: one goes on,
/// the other is refused cleanly instead of racing on the half-built copy.
public final class WorkingCopyLock {
    public let path: String
    private let fd: Int32

    /// Why the lock could not be taken.
    public enum Failure: Error, Sendable {
        /// Another process holds it.
        case inUse(folder: String)
        /// The lock file cannot be made (permissions, missing folder).
        case unavailable(folder: String, reason: String)

        /// One sentence for the operator.
        public var message: String {
            switch self {
            case .inUse(let folder):
                return "the working copy in \(folder) is in use by another resync run; wait for it to finish or choose another --work"
            case .unavailable(let folder, let reason):
                return "cannot lock the working copy folder \(folder): \(reason)"
            }
        }
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock of `folder` (which must exist) without waiting.
    public static func acquire(folder: String) -> Result<WorkingCopyLock, Failure> {
        let path = folder + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failure(.unavailable(folder: folder, reason: String(cString: strerror(errno)))) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            return .failure(code == EWOULDBLOCK ? .inUse(folder: folder)
                            : .unavailable(folder: folder, reason: String(cString: strerror(code))))
        }
        return .success(WorkingCopyLock(path: path, fd: fd))
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
