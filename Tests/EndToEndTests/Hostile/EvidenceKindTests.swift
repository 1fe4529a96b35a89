import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 11 item 3, from the reproduced case: `bgeo.db` as a named pipe blocked every command
/// forever with no output. Only regular files are read as evidence: a FIFO, a socket or a device
/// is refused at once with exit 2 and one sentence; a FIFO beside the dump as its -wal is left out.
@Suite struct EvidenceKindTests {
    static let commands = ["inspect", "locations", "logs", "replay", "timeline", "report", "gpx", "resync"]

    static func arguments(_ command: String, _ dump: String, _ dir: TestDirectory) -> [String] {
        switch command {
        case "report": return ["report", dump, "-o", dir.file("r.html")]
        case "gpx": return ["gpx", dump, "-o", dir.file("t.gpx")]
        case "resync": return ["resync", dump, "--dry-run", "--url", "http://127.0.0.1:9/x", "--work", dir.file("work")]
        default: return [command, dump]
        }
    }

    @Test(arguments: commands)
    func namedPipeIsRefusedAtOnce(command: String) throws {
        let dir = TestDirectory("fifo")
        let fifo = dir.file("bgeo.db")
        try #require(mkfifo(fifo, 0o600) == 0)
        let started = Date()
        let result = try Hostile.run(EvidenceKindTests.arguments(command, fifo, dir), tmp: dir.path)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.exitCode == 2)
        #expect(result.stderr == "\(fifo) is a named pipe (FIFO), not a regular file, so it is not read as evidence (copy the dump to a file first).\n")
    }

    @Test func deviceAndSocketAreRefused() throws {
        let device = try Hostile.run(["inspect", "/dev/zero"])
        #expect(device.exitCode == 2)
        #expect(device.stderr.contains("/dev/zero is a character device, not a regular file"))

        let dir = TestDirectory("socket")
        let path = dir.file("bgeo.db")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        try #require(bound == 0)
        let socketResult = try Hostile.run(["inspect", path])
        #expect(socketResult.exitCode == 2)
        #expect(socketResult.stderr.contains("is a socket, not a regular file"))
    }

    @Test func fifoBesideTheDumpAsItsWALIsLeftOut() throws {
        let dir = TestDirectory("fifo-wal")
        let dump = try Hostile.dump(at: dir.file("bgeo.db"))
        try #require(mkfifo(dump + "-wal", 0o600) == 0)
        let started = Date()
        let result = try Hostile.run(["inspect", dump, "--json"])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let warnings = try JSONParser.parse(result.stdout)["warnings"]?.arrayValue ?? []
        #expect(warnings.contains { $0["table"]?.stringValue == dump + "-wal"
            && $0["message"]?.stringValue?.contains("named pipe (FIFO), not a regular file") == true })
        #expect(try JSONParser.parse(result.stdout)["queue"]?["count"]?.intValue == 5)
    }
}
