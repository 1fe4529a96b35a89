import BGeoForensics
import Foundation

// The signal handler may touch nothing but these two words: statically initialised globals
// (no lazy initialisation inside a handler), written by the handler, read by the run.
nonisolated(unsafe) private var interruptPipeWriteEnd: Int32 = -1
nonisolated(unsafe) private var interruptSignalNumber: Int32 = 0

/// Records the signal, wakes whoever polls the pipe, and restores the default action: a second
/// Ctrl-C ends the process at once (the working copy survives that too, like a kill -9).
private func handleInterrupt(_ signal: Int32) {
    interruptSignalNumber = signal
    var byte: UInt8 = 1
    _ = write(interruptPipeWriteEnd, &byte, 1)
    var action = sigaction()
    action.__sigaction_handler.sa_handler = SIG_DFL
    sigaction(signal, &action, nil)
}

/// SIGINT / SIGTERM as an event a run can wait on: the handler writes to a self-pipe, so a
/// request blocked in `poll` or a backoff wait wakes up whichever thread the kernel delivered
/// the signal to. A run then finishes or abandons the request in flight, journals it, and
/// stops with a summary instead of dying mid-sentence.
public final class InterruptSignal: Sendable {
    /// One per process: signal dispositions are process-wide.
    public static let shared = InterruptSignal()

    /// Read end of the self-pipe: readable once a signal arrived (never drained).
    let descriptor: Int32

    private init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        descriptor = ends[0]
        interruptPipeWriteEnd = ends[1]
    }

    /// Catches SIGINT and SIGTERM from now on (the first of them; see `handleInterrupt`), on
    /// the calling thread too when it inherited them blocked (a process spawned by a test runner
    /// or a service manager may start with them masked, and would then never see a Ctrl-C).
    public func install() {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { handleInterrupt($0) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
            sigaddset(&unblock, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// The signal that arrived, if one did.
    public var received: Int32? {
        let signal = interruptSignalNumber
        return signal == 0 ? nil : signal
    }

    /// `SIGINT`, `SIGTERM`.
    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(signal)"
        }
    }

    /// Sleeps `seconds`, or less when a signal arrives (or had arrived). False when interrupted.
    @discardableResult
    public func sleep(_ seconds: Double) -> Bool {
        let end = HTTPClock.now() + seconds
        while received == nil {
            let left = end - HTTPClock.now()
            if left <= 0 { return true }
            var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
        }
        return false
    }
}
