import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 11 item 5 and issue 10 item 6: no private copy of a dump (it holds the customer's
/// tokens) outlives its process. The old build left `$TMPDIR/bgeo-forensics-<UUID>/dump.db`
/// after about one successful `inspect`, `replay` or `gpx` run in five (a background thread held
/// the last reference while the main thread exited), after every kill -9, and after a killed
/// resync — outside its --work folder.
@Suite struct PrivateCopyRunsTests {
    static let directory = TestDirectory("private-copy-runs")
    /// A WAL dump with the secrets the copy must not leak: the copy, its WAL and SQLite's index.
    static let dump: String = {
        do {
            return try Hostile.dump(at: directory.file("bgeo.db"), records: 40, wal: true) { w in
                try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "config",
                                data: ["url": "https://ingest.example/l", "authorization": ["accessToken": "secret-token"]])
            }
        } catch { fatalError("fixture: \(error)") }
    }()

    static let readers: [[String]] = [["inspect"], ["locations"], ["logs"], ["replay"], ["timeline"], ["report", "-o", "OUT/r.html"],
                                      ["gpx", "-o", "OUT/t.gpx"], ["resync", "--dry-run", "--url", "http://127.0.0.1:9/x", "--work", "OUT/work"]]

    @Test(arguments: readers)
    func everyReaderCommandLeavesTMPDIREmptyAfter50Runs(command: [String]) throws {
        let tmp = TestDirectory("tmpdir-\(command[0])")
        let out = TestDirectory("out-\(command[0])")
        var arguments = command.map { $0.replacingOccurrences(of: "OUT", with: out.path) }
        arguments.insert(PrivateCopyRunsTests.dump, at: 1)
        for run in 1...50 {
            let result = try Hostile.run(arguments, tmp: tmp.path)
            #expect(result.exitCode == 0, "run \(run): \(result.stderr)")
            let left = Hostile.entries(tmp.path)
            #expect(left.isEmpty, "run \(run) of \(command[0]) left \(left) in $TMPDIR")
            if !left.isEmpty { break }
        }
        #expect(Hostile.privateCopies(out.path + "/work").isEmpty)
    }
}

/// Signals and kills, one at a time (each holds a blocked process).
@Suite(.serialized) struct PrivateCopyTests {
    static let directory = TestDirectory("private-copies")
    /// Enough rows that `locations` blocks on a pipe nobody reads (its output is > 64 KB).
    static let bigDump: String = {
        do {
            return try Hostile.dump(at: directory.file("big.db"), records: 3_000, wal: true) { w in
                try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "config",
                                data: ["url": "https://ingest.example/l", "authorization": ["accessToken": "secret-token"]])
            }
        } catch { fatalError("fixture: \(error)") }
    }()

    /// `locations` writing into a pipe nobody reads: it has its copy open and blocks in write().
    static func blockedRun(tmp: String) throws -> Spawned {
        let process = try Spawned(["locations", bigDump], tmp: tmp)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let folder = Hostile.privateCopies(tmp).first, FileManager.default.fileExists(atPath: tmp + "/" + folder + "/dump.db") { break }
            usleep(20_000)
        }
        usleep(300_000)  // into the scan and the blocked write
        return process
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalRemovesTheCopy(signal: Int32) throws {
        let tmp = TestDirectory("signal-\(signal)")
        let process = try PrivateCopyTests.blockedRun(tmp: tmp.path)
        #expect(!Hostile.privateCopies(tmp.path).isEmpty, "the copy exists while the command runs")
        kill(process.pid, signal)
        #expect(process.waitForSignal() == signal, "ended by the signal, as without the cleanup")
        #expect(Hostile.entries(tmp.path).isEmpty, "left \(Hostile.entries(tmp.path))")
    }

    /// Issue 12: the streamed trace's work files (tapes in the private folder) go with the copy on
    /// a signal: `replay --fixes` blocked writing its decisions into a pipe nobody reads has them open.
    @Test func aSignalRemovesTheStreamedTracesWorkFilesToo() throws {
        let tmp = TestDirectory("signal-work-files")
        let process = try Spawned(["replay", "--fixes", PrivateCopyTests.bigDump], tmp: tmp.path)
        var workFiles: [String] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, workFiles.isEmpty {
            if let folder = Hostile.privateCopies(tmp.path).first {
                workFiles = Hostile.entries(tmp.path + "/" + folder).filter { $0.hasPrefix("work-") }
            }
            usleep(20_000)
        }
        #expect(!workFiles.isEmpty, "the trace's work files exist while replay runs")
        usleep(300_000)  // into the blocked write of the decisions
        kill(process.pid, SIGTERM)
        #expect(process.waitForSignal() == SIGTERM)
        #expect(Hostile.entries(tmp.path).isEmpty, "left \(Hostile.entries(tmp.path))")
    }

    /// A crash signal: the copy goes first, then the Swift runtime's crash handler runs as before
    /// (for a signal sent from outside it prints its backtrace and returns, so the test ends the
    /// process itself).
    @Test(arguments: [SIGSEGV, SIGABRT])
    func aCrashSignalRemovesTheCopy(signal: Int32) throws {
        let tmp = TestDirectory("crash-\(signal)")
        let process = try PrivateCopyTests.blockedRun(tmp: tmp.path)
        #expect(!Hostile.privateCopies(tmp.path).isEmpty)
        kill(process.pid, signal)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !Hostile.entries(tmp.path).isEmpty { usleep(20_000) }
        #expect(Hostile.entries(tmp.path).isEmpty, "left \(Hostile.entries(tmp.path))")
        process.killGroup()
        _ = process.waitForSignal()
    }

    @Test func theCopyOfAKilledRunIsRemovedByTheNextRun() throws {
        let tmp = TestDirectory("kill9")
        let process = try PrivateCopyTests.blockedRun(tmp: tmp.path)
        kill(process.pid, SIGKILL)
        _ = process.waitForSignal()
        #expect(Hostile.privateCopies(tmp.path).count == 1, "nothing can run on kill -9: the copy stays until the next run")
        let next = try Hostile.run(["inspect", PrivateCopyTests.bigDump], tmp: tmp.path)
        #expect(next.exitCode == 0)
        #expect(Hostile.entries(tmp.path).isEmpty, "the next run removed the stale copy: \(Hostile.entries(tmp.path))")
    }

    @Test func aCopyInUseIsNotRemovedByAnotherRun() throws {
        let tmp = TestDirectory("in-use")
        let process = try PrivateCopyTests.blockedRun(tmp: tmp.path)
        let running = Hostile.privateCopies(tmp.path)
        let other = try Hostile.run(["inspect", PrivateCopyTests.bigDump], tmp: tmp.path)
        #expect(other.exitCode == 0)
        #expect(Hostile.privateCopies(tmp.path) == running, "the running command's copy is still there")
        kill(process.pid, SIGTERM)
        #expect(process.waitForSignal() == SIGTERM)
        #expect(Hostile.entries(tmp.path).isEmpty)
    }

    /// A server that accepts connections into its backlog and never answers: resync waits on it.
    static func silentServer() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(bound == 0 && listen(fd, 16) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    @Test func resyncKilledByKill9LeavesNothingOutsideItsWorkFolder() throws {
        let tmp = TestDirectory("resync-kill9-tmp")
        let workParent = TestDirectory("resync-kill9-work")
        let work = workParent.file("work")
        let server = try PrivateCopyTests.silentServer()
        defer { close(server.fd) }
        let process = try Spawned(["resync", PrivateCopyTests.bigDump, "--url", "http://127.0.0.1:\(server.port)/ingest", "--work", work],
                                  tmp: tmp.path)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !FileManager.default.fileExists(atPath: work + "/work.db") { usleep(20_000) }
        usleep(500_000)  // sending to the silent server
        #expect(process.isRunning, "resync is waiting on the server")
        kill(process.pid, SIGKILL)
        _ = process.waitForSignal()
        #expect(Hostile.entries(tmp.path).isEmpty, "no copy of the dump in $TMPDIR: \(Hostile.entries(tmp.path))")
        #expect(Hostile.privateCopies(work).count == 1, "the killed run's copy stayed inside --work")
        let next = try Hostile.run(["resync", PrivateCopyTests.bigDump, "--quarantine", "--work", work], tmp: tmp.path)
        #expect(next.exitCode == 0, "\(next.stderr)")
        #expect(Hostile.privateCopies(work).isEmpty, "the next run in that folder removed it")
        #expect(Hostile.entries(tmp.path).isEmpty)
    }
}
