import BGeoForensics
import Foundation

/// Files that must not outlive the run, whatever ends it: removed when the work is done or fails,
/// at exit, and on a signal by the process-wide `SignalCleanup` (which then lets the signal do what
/// it would have done). (A `kill -9` cannot be caught: the files it could leave hold only
/// already-sanitised rows, and carry the `.sanitize-` prefix.)
final class TemporaryFiles {
    /// Each registered path with its `SignalCleanup` slot.
    private var paths: [(path: String, slot: Int)] = []

    init() {}

    /// Registers `path` (and its SQLite side files) for removal, before the file is created.
    func register(_ path: String) {
        for candidate in [path, path + "-journal", path + "-wal", path + "-shm"] {
            paths.append((candidate, SignalCleanup.registerFile(candidate)))
        }
    }

    /// Forgets `path` without removing it (it became the output).
    func release(_ path: String) {
        for entry in paths where entry.path == path { SignalCleanup.unregister(entry.slot) }
        paths.removeAll { $0.path == path }
    }

    /// Removes every registered file that exists.
    func removeAll() {
        for entry in paths {
            unlink(entry.path)
            SignalCleanup.unregister(entry.slot)
        }
        paths.removeAll()
    }

    deinit { removeAll() }
}
