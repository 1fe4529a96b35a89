import Foundation
import Synchronization

/// A folder only this process uses, holding the private copy of a dump (it carries the
/// customer's tokens). It must never outlive the process, whatever ends it:
///
/// - normal release: `deinit` removes it;
/// - `exit()` while a value is still alive (a background thread holding the last reference, a
///   global): an exit handler removes every folder still registered;
/// - SIGINT, SIGTERM, SIGHUP, SIGPIPE (`| head`), and crash signals (a trap, SIGSEGV, SIGABRT):
///   a signal handler removes the known files and the folder with async-signal-safe calls, then
///   lets the signal do what it did before (default action, or the handler that was installed —
///   the Swift runtime's backtracer for a crash). A handler someone else installed first (resync
///   handles SIGINT itself) is left in place: that path ends in `exit`, hence the exit handler;
/// - kill -9 or a power cut, where nothing can run: each folder holds `owner.lock`, locked with
///   `flock` for the life of the process (the kernel drops the lock when the process dies), so
///   the next run that makes a folder in the same place finds the lock free and removes the
///   stale folder. A folder without a lock file never holds a copy made by this code (the lock
///   comes first): an empty one (a process killed between mkdir and locking) is removed once it
///   is a minute old; one with files was made by an older build, which may still be running
///   (another user of the same $TMPDIR), so it is removed only once it is a day old.
package final class PrivateFolder: Sendable {
    package static let namePrefix = "bgeo-forensics-"
    package static let lockName = "owner.lock"
    /// The only files a private folder holds (the copy, SQLite's companions, the lock, salvaged
    /// tables, the streamed trace's work files); the signal handler unlinks exactly these.
    static let knownFiles = ["dump.db", "dump.db-wal", "dump.db-shm", "dump.db-journal",
                             mainOnlyName, mainOnlyName + "-wal", mainOnlyName + "-shm", mainOnlyName + "-journal",
                             lockName, lockName + ".new"] + (0..<SalvagedTable.slots).map(SalvagedTable.fileName)
        + WorkFolder.knownNames
    /// A second name (hard link) of the copy, to read the main file without its WAL.
    static let mainOnlyName = "main-only.db"

    package let path: String
    /// The descriptor holding `owner.lock`; -1 once removed (`remove` may race `deinit` and a
    /// second caller: the Mutex makes the removal happen once).
    private let lockDescriptor: Mutex<Int32>
    private let slot: Int

    /// Creates `<parent>/bgeo-forensics-<UUID>` (mode 0700) and locks it; first removes the stale
    /// folders of dead processes in `parent`.
    package init(in parent: String) throws(DumpError) {
        PrivateFolder.removeStale(in: parent)
        let folder = (parent as NSString).appendingPathComponent(PrivateFolder.namePrefix + UUID().uuidString)
        // Failures here are the machine's (a full, read-only or missing $TMPDIR, no descriptor
        // left), never the dump's: `environment`, which `EvidenceCopy` words for the dump.
        guard mkdir(folder, 0o700) == 0 else { throw .environment(path: parent, reason: DumpError.copyReason(in: parent, errno)) }
        // Locked under a temporary name, then renamed: a sweeper never sees an unlocked owner.lock.
        let pending = folder + "/" + PrivateFolder.lockName + ".new"
        let fd = open(pending, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0, rename(pending, folder + "/" + PrivateFolder.lockName) == 0 else {
            let code = errno
            if fd >= 0 { close(fd) }
            _ = unlink(pending)
            _ = rmdir(folder)
            throw .environment(path: parent, reason: DumpError.copyReason(in: parent, code))
        }
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        path = folder
        lockDescriptor = Mutex(fd)
        slot = SignalCleanup.register(folder)
    }

    /// Removes the folder and everything in it, then drops the lock. Safe to call twice.
    package func remove() {
        lockDescriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            SignalCleanup.unregister(slot)
            PrivateFolder.removeTree(path)
            close(descriptor)
            descriptor = -1
        }
    }

    /// Removes `folder` and what it holds. A file created inside while the tree is walked (SQLite
    /// making a `-shm` or `-journal` for a connection a background reader still holds) makes the
    /// last `rmdir` fail and left the folder behind (fuzz seed 20261204, case 5718, once under
    /// load): the walk is tried again until the folder is gone, a few times.
    static func removeTree(_ folder: String) {
        for attempt in 0..<20 {
            try? FileManager.default.removeItem(atPath: folder)
            var info = stat()
            guard lstat(folder, &info) == 0 else { return }
            usleep(useconds_t(min(50_000, 1_000 << attempt)))
        }
    }

    deinit { remove() }

    /// Removes every `bgeo-forensics-*` folder in `parent` whose owner is gone: its lock can be
    /// taken (the owning process died), or it has no lock and is old enough (see the type
    /// comment). Folders of other users, or in use, are left alone.
    static func removeStale(in parent: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix(namePrefix) {
            let folder = (parent as NSString).appendingPathComponent(name)
            var info = stat()
            guard lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid() else { continue }
            let fd = open(folder + "/" + lockName, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if fd >= 0 {
                defer { close(fd) }
                guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }  // its owner is alive
                try? FileManager.default.removeItem(atPath: folder)
            } else if errno == ENOENT {
                let age = Date().timeIntervalSince1970 - Double(info.st_mtim.tv_sec)
                let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                let empty = contents.allSatisfy { $0 == lockName + ".new" }
                if age > (empty ? 60 : 86_400) { try? FileManager.default.removeItem(atPath: folder) }
            }
        }
    }
}
