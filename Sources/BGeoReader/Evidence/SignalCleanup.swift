import Foundation

/// What must not outlive the process, whatever ends it (see `PrivateFolder` for the signals and
/// the chaining): the private folders alive now, and single files (`sanitize`'s staged output),
/// as C strings ready for a signal handler, which may not allocate or lock. Everything the
/// handler touches is allocated when the first path is registered. One table and one handler
/// per signal for the whole process, so two kinds of cleanup never undo each other's.
package enum SignalCleanup {
    private static let capacity = 64
    private static let pathCapacity = Int(PATH_MAX) + 64
    /// Per slot: the path, or nil. Written under `lock` by ordinary code; the signal handler only
    /// follows pointers that were fully written before being stored.
    nonisolated(unsafe) private static let folders = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    /// Per slot: true for a private folder (its known files unlinked, then rmdir), false for a file.
    nonisolated(unsafe) private static let isFolder = UnsafeMutablePointer<Bool>.allocate(capacity: capacity)
    /// The action each signal had before (indexed by signal number), and whether it was saved.
    nonisolated(unsafe) private static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) private static let saved = UnsafeMutablePointer<Bool>.allocate(capacity: 65)
    /// Scratch space for "<folder>/<file>" inside the handler.
    nonisolated(unsafe) private static let scratch = UnsafeMutablePointer<CChar>.allocate(capacity: pathCapacity)
    private static let lock = NSLock()
    private static let crashSignals: [Int32] = [SIGILL, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGTRAP]
    private static let politeSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT]
    private static let installed: Void = {
        folders.initialize(repeating: nil, count: capacity)
        isFolder.initialize(repeating: false, count: capacity)
        saved.initialize(repeating: false, count: 65)
        // Every static the handler reads is made here, never first in the handler: a lazy static
        // allocates, and a signal that lands while malloc holds its lock then waits forever (a
        // SIGTERM'd sanitize hung so in the suite: the handler's first use of `scratch`).
        _ = nameList
        _ = scratch
        _ = previous
        atexit { SignalCleanup.removeAll() }
        for signal in politeSignals + crashSignals { install(signal) }
    }()

    /// The known file names, each NUL-terminated, back to back, then an empty name.
    nonisolated(unsafe) private static let nameList: UnsafeMutablePointer<CChar> = {
        let bytes: [CChar] = PrivateFolder.knownFiles.flatMap { Array($0.utf8CString) } + [0]
        let list = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        list.initialize(from: bytes, count: bytes.count)
        return list
    }()

    /// Remembers `folder` for the exit and signal handlers; returns its slot (-1 when all are
    /// taken: the folder is then removed by `deinit` or by the next run's sweep only).
    static func register(_ folder: String) -> Int {
        register(folder, isFolder: true)
    }

    /// Remembers a single file (it may not exist yet) for the exit and signal handlers; returns
    /// its slot, as `register`.
    package static func registerFile(_ path: String) -> Int {
        register(path, isFolder: false)
    }

    private static func register(_ path: String, isFolder folder: Bool) -> Int {
        installed
        lock.lock()
        defer { lock.unlock() }
        for slot in 0..<capacity where folders[slot] == nil {
            isFolder[slot] = folder
            folders[slot] = strdup(path)
            return slot
        }
        return -1
    }

    package static func unregister(_ slot: Int) {
        guard slot >= 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        let path = folders[slot]
        folders[slot] = nil
        free(path)
    }

    /// At exit: whatever is still registered goes (a copy whose owner was not released in time).
    private static func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        for slot in 0..<capacity {
            guard let path = folders[slot] else { continue }
            if isFolder[slot] { PrivateFolder.removeTree(String(cString: path)) } else { _ = unlink(path) }
        }
    }

    /// Installs the handler for `signal`. A polite signal someone already handles or ignores is
    /// left to them; a crash handler (the Swift runtime's backtracer) is chained to.
    private static func install(_ signal: Int32) {
        var old = sigaction()
        guard sigaction(signal, nil, &old) == 0 else { return }
        let disposition = unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self)
        let isDefault = disposition == unsafeBitCast(SIG_DFL, to: Int.self)
        guard isDefault || crashSignals.contains(signal) else { return }
        previous[Int(signal)] = old
        saved[Int(signal)] = true
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in SignalCleanup.handle(signal) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = Int32(SA_NODEFER)
        _ = sigaction(signal, &action, nil)
    }

    /// Async-signal-safe: unlink each file, the known files of each folder and rmdir it, put back what handled
    /// the signal before, and raise it again.
    private static func handle(_ signal: Int32) {
        for slot in 0..<capacity {
            guard let path = folders[slot] else { continue }
            if isFolder[slot] { removeKnownFiles(in: path) } else { _ = unlink(path) }
        }
        if saved[Int(signal)] {
            _ = sigaction(signal, previous + Int(signal), nil)
        } else {
            _ = Foundation.signal(signal, SIG_DFL)
        }
        raise(signal)
    }

    /// unlink each known file, then rmdir: only C calls on buffers allocated beforehand.
    private static func removeKnownFiles(in folder: UnsafeMutablePointer<CChar>) {
        let length = strlen(folder)
        var name = nameList
        while name.pointee != 0 {
            let nameLength = strlen(name)
            if length + 1 + nameLength < pathCapacity {
                memcpy(scratch, folder, length)
                scratch[length] = 0x2F  // "/"
                memcpy(scratch + length + 1, name, nameLength + 1)
                _ = unlink(scratch)
            }
            name += nameLength + 1
        }
        _ = rmdir(folder)
    }
}
