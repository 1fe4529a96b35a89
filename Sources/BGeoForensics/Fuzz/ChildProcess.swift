import Foundation

/// Runs a program as the fuzz suite needs it: its own environment ($TMPDIR), stdin closed,
/// stdout and stderr into files, and a deadline after which it is killed (a hang is a finding).
struct ChildProcess {
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
    }

    struct Result {
        let ending: Ending
        let stdout: [UInt8]
        let stderr: [UInt8]
        let seconds: Double
    }

    /// Runs `path` with `arguments`; output goes through `outputStem`.out / .err (then read back).
    static func run(_ path: String, _ arguments: [String], environment: [String: String], outputStem: String,
                    timeout: Double) throws -> Result {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputStem + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, outputStem + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = ChildProcess.withShellSignals { attributes in posix_spawn(&pid, path, &actions, &attributes, argv, envp) }
        guard rc == 0 else { throw FuzzError(description: "cannot run \(path): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        var ending: Ending?
        var pause: UInt32 = 500
        while ending == nil {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid {
                ending = (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
            } else if done < 0, errno != EINTR {
                throw FuzzError(description: "waitpid failed: \(String(cString: strerror(errno)))")
            } else if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 > timeout {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                ending = .timedOut
            } else {
                usleep(pause)
                pause = min(pause * 2, 10_000)
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let out = (try? Data(contentsOf: URL(fileURLWithPath: outputStem + ".out"))).map { [UInt8]($0) } ?? []
        let err = (try? Data(contentsOf: URL(fileURLWithPath: outputStem + ".err"))).map { [UInt8]($0) } ?? []
        return Result(ending: ending!, stdout: out, stderr: err, seconds: seconds)
    }
}

extension ChildProcess {
    /// Spawn attributes that start a child as a shell does: nothing blocked, every signal at its
    /// default (otherwise the calling thread's mask is inherited — a test thread blocks SIGINT).
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

/// A fuzz harness problem (not a finding about the tool).
public struct FuzzError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
