import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Dumps holding exactly the hostile values the issue reproduced, built as real SQLite files,
/// and the helpers the hostile-input suites share.
enum Hostile {
    /// The reader commands, with the arguments each needs besides the dump (outputs go to `out`).
    static func readerCommands(out: String) -> [(name: String, arguments: [String])] {
        [("inspect", []), ("locations", []), ("logs", []), ("replay", []), ("timeline", []),
         ("report", ["-o", out + "/report.html"]), ("gpx", ["-o", out + "/track.gpx"])]
    }

    static func record(_ i: Int, uuid: String? = nil, latitude: Double = 52.2, longitude: Double = 21.0,
                       time: Double = 1_784_880_000, geofence: (String, String)? = nil) -> JSONValue {
        var object: JSONObject = [
            "uuid": .string(uuid ?? "hostile-\(i)"), "timestamp": .string(Timestamp.format(time + Double(i) * 10)),
            "odometer": .double(Double(i) * 20),
            "coords": ["latitude": .double(latitude + Double(i) * 0.0002), "longitude": .double(longitude), "accuracy": 5,
                       "speed": 2, "heading": 90, "altitude": 100],
            "is_moving": true,
        ]
        if let geofence {
            object["event"] = "geofence"
            object["geofence"] = ["identifier": .string(geofence.0), "action": .string(geofence.1)]
        }
        return .object(object)
    }

    /// A current-schema dump with `records` plain fixes, then whatever `extra` writes.
    @discardableResult
    static func dump(at path: String, records: Int = 5, wal: Bool = false, layout: DumpWriter.Layout = .current,
                     _ extra: (DumpWriter) throws -> Void = { _ in }) throws -> String {
        let writer = try DumpWriter(path: path, layout: layout, wal: wal)
        try writer.begin()
        for i in 0..<records { try writer.insertRecord(record(i)) }
        try writer.commit()
        try extra(writer)
        try writer.close(keepWAL: wal)
        for suffix in ["-shm", "-journal"] { _ = unlink(path + suffix) }
        return path
    }

    /// A JWT whose payload's `exp` is the given JSON number text.
    static func jwt(exp: String) -> String { FuzzValues.jwt(exp: exp) }

    /// Runs the tool with `$TMPDIR` set to `tmp` (the rest of the environment kept).
    static func run(_ arguments: [String], tmp: String? = nil) throws -> ToolResult {
        var environment = ProcessInfo.processInfo.environment
        if let tmp { environment["TMPDIR"] = tmp }
        return try ToolRunner.run(arguments, environment: environment)
    }

    /// The first raw control or bidi character in `text` (line feeds allowed), shown visibly.
    static func rawControl(_ text: String) -> String? {
        for scalar in text.unicodeScalars where TerminalText.isControl(scalar.value) && scalar != "\n" {
            return TerminalText.visible(scalar.value)
        }
        return nil
    }

    /// Entries left in a folder (a $TMPDIR that must stay empty).
    static func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// Private copies (`bgeo-forensics-*`) in a folder.
    static func privateCopies(_ folder: String) -> [String] {
        entries(folder).filter { $0.hasPrefix("bgeo-forensics-") }
    }
}

/// The tool started as a shell starts it — no signal blocked, every signal at its default — with
/// stdout into a pipe this value holds but never reads (so a long listing blocks in write()).
/// (Foundation's Process passes on the test thread's signal mask, which blocks SIGINT & co.)
final class Spawned {
    let pid: pid_t
    private let pipeRead: Int32

    init(_ arguments: [String], tmp: String) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FuzzError(description: "pipe failed") }
        pipeRead = fds[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        let argv: [UnsafeMutablePointer<CChar>?] = ([ToolRunner.executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = ChildProcess.withShellSignals { attributes in
            // A group of its own: a crash test can then end the tool and the crash handler's
            // helper it started together (`killGroup`). A helper left running kept whatever pipe
            // ends this process had open when the tool was spawned, so other tests reading to
            // the end of their own pipes waited for it (a whole test run hung once).
            var flags: Int16 = 0
            posix_spawnattr_getflags(&attributes, &flags)
            posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
            return posix_spawn(&child, ToolRunner.executable, &actions, &attributes, argv, envp)
        }
        close(fds[1])
        guard rc == 0 else { throw FuzzError(description: "spawn failed: \(rc)") }
        pid = child
    }

    /// Ends the tool and everything it started (its process group) with SIGKILL.
    func killGroup() {
        kill(-pid, SIGKILL)
    }

    var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Waits for the end: the signal that ended it, or nil when it exited.
    func waitForSignal() -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (status & 0x7F) == 0 ? nil : status & 0x7F
    }

    deinit { close(pipeRead) }
}
