import Foundation

/// One run of a program in its own process, as `fleet` runs each analysis and the fuzz suite each
/// command: standard output captured (up to a limit), the tail of standard error kept, standard
/// input closed, a deadline after which it is killed, and its exit status, signal and peak RSS.
/// A crash, a runaway memory use or a hang stays in that process.
package struct ChildProcess {
    /// The process could not be started (no pipe, no such program).
    package struct SpawnError: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    package struct Outcome {
        package var exitCode: Int32?
        /// The signal that ended it, if one did.
        package var signal: Int32?
        package var stdout: [UInt8]
        /// The last bytes of standard error.
        package var stderrTail: [UInt8]
        package var timedOut: Bool
        /// Standard output passed `maxOutput` (the process was killed).
        package var outputOverflow: Bool
        /// Peak resident memory, kilobytes (ru_maxrss).
        package var peakKilobytes: Int
    }

    var executable: String
    var arguments: [String]
    /// Added to (or replacing in) this process's environment.
    var environment: [String: String] = [:]
    var timeout: Double?
    /// Descriptors of this process the child also gets: its number there → the descriptor here.
    package var passing: [Int32: Int32] = [:]
    var maxOutput = 64 << 20
    /// How many of standard error's last bytes are kept.
    var stderrTail = 4096

    package init(executable: String, arguments: [String], environment: [String: String] = [:], timeout: Double? = nil,
                 passing: [Int32: Int32] = [:], maxOutput: Int = 64 << 20, stderrTail: Int = 4096) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.timeout = timeout
        self.passing = passing
        self.maxOutput = maxOutput
        self.stderrTail = stderrTail
    }

    private static let spawnLock = NSLock()
    /// How often a read with nothing to read checks whether the child has ended.
    static let reapCheckMilliseconds: Int32 = 200
    /// How long, after the child has ended, its pipes are still read while others hold them.
    static let drainGrace = 2.0

    /// Starts the process and waits for it; `started` and `ended` see its pid (to kill it from
    /// elsewhere meanwhile). Throws only when it cannot be started.
    package func run(started: (pid_t) -> Void = { _ in }, ended: (pid_t) -> Void = { _ in }) throws(SpawnError) -> Outcome {
        // Pipes and spawn under one lock, the parent's write ends closed before it is released, and
        // every pipe end close-on-exec: a child started by another thread never inherits this
        // child's pipes (which would hold its output open after it ends).
        ChildProcess.spawnLock.lock()
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else {
            ChildProcess.spawnLock.unlock()
            throw SpawnError(description: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            ChildProcess.spawnLock.unlock()
            throw SpawnError(description: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for (target, source) in passing { posix_spawn_file_actions_adddup2(&actions, source, target) }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        // Each argument as the bytes it stands for: a file name need not be UTF-8 (`RawPath`).
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map(RawPath.duplicate) + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child starts with default signal handling even where this process ignores or blocks
        // a signal (fleet ignores SIGINT/SIGTERM to handle them itself; a test thread blocks
        // SIGINT): Ctrl-C and a closed pipe end it.
        var pid: pid_t = 0
        var rc: Int32 = 0
        // An executable written a moment ago (a test's script, a tool just copied) can still be
        // open for writing in a child another thread is starting: ETXTBSY until that child
        // execs, which is a matter of milliseconds. Tried again for up to half a second.
        for attempt in 0..<50 {
            rc = ChildProcess.withShellSignals { posix_spawn(&pid, executable, &actions, &$0, argv, envp) }
            guard rc == ETXTBSY, attempt < 49 else { break }
            usleep(10_000)
        }
        close(outPipe[1])
        close(errPipe[1])
        ChildProcess.spawnLock.unlock()
        guard rc == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw SpawnError(description: "cannot run \(executable): \(String(cString: strerror(rc)))")
        }
        started(pid)
        var outcome = Outcome(exitCode: nil, signal: nil, stdout: [], stderrTail: [], timedOut: false, outputOverflow: false,
                              peakKilobytes: 0)
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        var fds = [pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0), pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0)]
        var open = 2
        var killed = false
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        var status: Int32 = 0
        var usage = rusage()
        var reaped = false
        // Once the child has ended, a process it left behind may still hold its pipes (a crash's
        // `swift-backtrace`, a job it put in the background): what they write within the grace
        // is kept, then the read ends (it waited for them for ever, the fuzz suite and fleet with it).
        var drainUntil: Date?
        while open > 0 {
            var wait = ChildProcess.reapCheckMilliseconds
            if let deadline, !killed { wait = min(wait, Int32(max(0, min(Double(Int32.max), deadline.timeIntervalSinceNow * 1000)))) }
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0, let deadline, !killed, deadline.timeIntervalSinceNow <= 0 {
                // The deadline passed: kill it and read what is left until the pipes close.
                outcome.timedOut = true
                kill(pid, SIGKILL)
                killed = true
            }
            // Checked on every turn, also while a holder keeps writing.
            if !reaped, wait4(pid, &status, WNOHANG, &usage) == pid {
                reaped = true
                drainUntil = Date().addingTimeInterval(ChildProcess.drainGrace)
            }
            if let drainUntil, drainUntil.timeIntervalSinceNow <= 0 { break }
            if ready == 0 { continue }
            for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, chunk) }
                if n > 0 {
                    if i == 0 {
                        outcome.stdout.append(contentsOf: buffer[0..<n])
                        if outcome.stdout.count > maxOutput, !killed {
                            outcome.outputOverflow = true
                            kill(pid, SIGKILL)
                            killed = true
                        }
                    } else {
                        outcome.stderrTail.append(contentsOf: buffer[0..<n])
                        if outcome.stderrTail.count > stderrTail { outcome.stderrTail.removeFirst(outcome.stderrTail.count - stderrTail) }
                    }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(fds[i].fd)
                    fds[i].fd = -1
                    open -= 1
                }
            }
        }
        for f in fds where f.fd >= 0 { close(f.fd) }
        while !reaped, wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        ended(pid)
        outcome.peakKilobytes = usage.ru_maxrss
        // WIFEXITED / WTERMSIG by hand (they are macros).
        if status & 0x7f == 0 {
            outcome.exitCode = (status >> 8) & 0xff
        } else {
            outcome.signal = status & 0x7f
        }
        return outcome
    }
}

extension ChildProcess {
    /// Spawn attributes that start a child as a shell does: nothing blocked, every signal at its
    /// default (otherwise the calling thread's mask and this process's ignored signals are inherited).
    static func withShellSignals<R>(_ body: (inout posix_spawnattr_t) -> R) -> R {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return body(&attributes)
    }
}
