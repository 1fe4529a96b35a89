import Foundation

/// Files that must not outlive the run, whatever ends it: removed when the work is done or fails,
/// and by a SIGINT / SIGTERM / SIGHUP handler (which then lets the signal do what it would have
/// done). The handler only calls `unlink`, which is safe in a signal handler; the paths live in
/// C strings allocated up front. (A `kill -9` cannot be caught: the files it could leave hold only
/// already-sanitised rows, and carry the `.sanitize-` prefix.)
final class TemporaryFiles {
    private var paths: [String] = []

    init() {}

    /// Registers `path` (and its SQLite side files) for removal, before the file is created.
    func register(_ path: String) {
        for candidate in [path, path + "-journal", path + "-wal", path + "-shm"] {
            paths.append(candidate)
            SignalCleanup.add(candidate)
        }
    }

    /// Forgets `path` without removing it (it became the output).
    func release(_ path: String) {
        paths.removeAll { $0 == path }
        SignalCleanup.remove(path)
    }

    /// Removes every registered file that exists.
    func removeAll() {
        for path in paths {
            unlink(path)
            SignalCleanup.remove(path)
        }
        paths.removeAll()
    }

    deinit { removeAll() }
}

/// The process-wide table the signal handler reads. Slots are set before a file exists and
/// cleared after it is gone or kept.
enum SignalCleanup {
    private static let capacity = 64
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
        return slots
    }()
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false
    /// The actions that were in place, by signal number (a plain array: read in the handler).
    nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = {
        let table = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        table.initialize(repeating: sigaction(), count: 65)
        return table
    }()

    static func add(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        installHandlers()
        for i in 0..<capacity where slots[i] == nil {
            slots[i] = strdup(path)
            return
        }
    }

    static func remove(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        for i in 0..<capacity {
            guard let slot = slots[i], String(cString: slot) == path else { continue }
            slots[i] = nil
            free(slot)
        }
    }

    private static func installHandlers() {
        guard !installed else { return }
        installed = true
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            // A signal the process was told to ignore (nohup, a parent's choice) stays ignored.
            var current = sigaction()
            sigaction(signal, nil, &current)
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                SignalCleanup.unlinkAll()
                SignalCleanup.restore(signal)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            _ = (previous, slots)  // initialised before a handler can read them
            sigaction(signal, &action, previous + Int(signal))
        }
    }

    /// Signal context: only unlink.
    private static func unlinkAll() {
        for i in 0..<capacity { if let slot = slots[i] { unlink(slot) } }
    }

    private static func restore(_ signal: Int32) {
        guard signal > 0, signal < 65 else { return }
        sigaction(signal, previous + Int(signal), nil)
    }
}
