import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// "Bounded exchanges" and "headers validated before anything is sent", the same on https as
/// on http: `httpTimeoutMs` cuts a server that trickles its answer, a body of any size costs a
/// fixed amount of memory, and a header value with CR/LF/NUL stops the run before a byte leaves.
@Suite(.serialized) struct ResyncBoundedExchangeTests {
    /// Runs the tool (through `launcher` when given) and samples its peak RSS (VmHWM) while it runs.
    static func runSamplingMemory(_ arguments: [String], launcher: [String] = []) throws -> (result: ToolResult, peakMB: Double, seconds: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? ToolRunner.executable)
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [ToolRunner.executable] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let start = Date()
        try process.run()
        final class Box: @unchecked Sendable { var out = Data(), err = Data() }
        let box = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { box.out = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { box.err = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        var peakKB = 0
        // unshare and sh exec the tool in place: the pid stays the tool's.
        while process.isRunning {
            if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                peakKB = max(peakKB, kb)
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        group.wait()
        let result = ToolResult(exitCode: process.terminationStatus, stdout: String(decoding: box.out, as: UTF8.self),
                                stderr: String(decoding: box.err, as: UTF8.self))
        return (result, Double(peakKB) / 1024, Date().timeIntervalSince(start))
    }

    @Test(arguments: ["https", "http"])
    func tricklingResponseIsCutAtHttpTimeoutMs(scheme: String) throws {
        if scheme == "https", let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-trickle-\(scheme)")
        let ca = scheme == "https" ? try TestCertificateAuthority() : nil
        // 1000 body bytes, one every 100 ms: 100 s to finish, were it let.
        let server = try ResyncIngestServer(dir, behaviour: ["trickle": ["/locs": ["bytes": 1000, "interval_ms": 100]]],
                                            tlsCertificate: ca?.serverPEM)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: ["httpTimeoutMs": 1500])
        let started = Date()
        let arguments = ["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs"), "--max-attempts", "1", "--json"]
        let result = try ca.map { try $0.run(arguments) } ?? ToolRunner.run(arguments)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.exitCode == 3, "\(result.stderr)")
        #expect(seconds < 6, "the trickling answer held the run for \(seconds) s")
        let summary = try ResyncEndToEndTests.summary(result)
        #expect(summary["remaining"] == .int(2) && summary["delivered"] == .int(0))
        #expect(summary["lastFailure"]?["reason"] == "timeout")
        #expect(summary["lastFailure"]?["message"]?.stringValue?.contains("within httpTimeoutMs (1500 ms) while reading the response body") == true,
                "\(summary["lastFailure"] ?? .null)")
        #expect(server.requests().count == 1)
    }

    @Test(arguments: [("https", "length"), ("https", "chunked"), ("https", "close"), ("http", "length"), ("http", "chunked")])
    func gigabyteResponseKeepsMemoryFlat(scheme: String, mode: String) throws {
        if scheme == "https", let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-gigabyte-\(scheme)-\(mode)")
        let ca = scheme == "https" ? try TestCertificateAuthority() : nil
        let server = try ResyncIngestServer(dir, behaviour: ["stream": ["/locs": ["bytes": .int(1 << 30), "mode": .string(mode)]]],
                                            tlsCertificate: ca?.serverPEM)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: ["batchSync": true])
        let run = try Self.runSamplingMemory(["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs"), "--json"],
                                             launcher: ca?.launcher ?? [])
        #expect(run.result.exitCode == 0, "\(run.result.stderr)")
        #expect(run.peakMB > 0 && run.peakMB < 100, "peak RSS \(run.peakMB) MB reading a 1 GiB response")
        #expect(run.seconds < 20, "\(run.seconds) s")
        // A 200 is a 200 whatever follows it: the batch is delivered, its body cut at the limit.
        #expect(try ResyncEndToEndTests.summary(run.result)["delivered"] == .int(2))
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT status, length(response) FROM journal")
        #expect(try stmt.step() && stmt.int(0) == 200 && stmt.int(1) == 1024)
    }

    @Test(arguments: ["https", "http"])
    func headerWithALineBreakIsRefusedBeforeAnythingIsSent(scheme: String) throws {
        if scheme == "https", let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-crlf-\(scheme)")
        let ca = scheme == "https" ? try TestCertificateAuthority() : nil
        let server = try ResyncIngestServer(dir, tlsCertificate: ca?.serverPEM)
        func run(_ config: JSONValue, _ extra: [String] = []) throws -> ToolResult {
            let sub = TestDirectory("crlf-case")
            let dump = try ResyncEndToEndTests.makeDump(sub, count: 2, config: config)
            let arguments = ["resync", dump, "--work", sub.file("work"), "--url", server.url("/locs")] + extra
            return try ca.map { try $0.run(arguments) } ?? ToolRunner.run(arguments)
        }
        // From the dump's recorded config (header injection: X-Injected would become a header of its own).
        let recorded = try run(["headers": ["X-Api-Key": "ak_live_1\r\nX-Injected: yes"]])
        #expect(recorded.exitCode == 2, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("header 'X-Api-Key'") && recorded.stderr.contains("carriage return (CR)"), "\(recorded.stderr)")
        // From --set, an LF; from --config, a NUL; in a refresh header; in a header name.
        let set = try run([:], ["--set", "headers.X-Trace=a\nb"])
        #expect(set.exitCode == 2 && set.stderr.contains("header 'X-Trace'") && set.stderr.contains("line feed (LF)"), "\(set.stderr)")
        let file = dir.file("nul.json")
        try #"{"headers":{"X-Nul":"a\u0000b"}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let config = try run([:], ["--config", file])
        #expect(config.exitCode == 2 && config.stderr.contains("header 'X-Nul'") && config.stderr.contains("NUL"), "\(config.stderr)")
        let refresh = try run(["authorization": ["accessToken": "a-token-1", "refreshUrl": .string(server.url("/refresh")),
                                                 "refreshHeaders": ["X-Key": "k\r\n"]]])
        #expect(refresh.exitCode == 2 && refresh.stderr.contains("header 'X-Key'") && refresh.stderr.contains("refreshHeaders"),
                "\(refresh.stderr)")
        let name = try run(["headers": ["X-Bad\r\nName": "v"]])
        #expect(name.exitCode == 2 && name.stderr.contains(#"header name 'X-Bad\r\nName'"#), "\(name.stderr)")
        let token = try run(["authorization": ["accessToken": "tok\nX-Admin: 1"]])
        #expect(token.exitCode == 2 && token.stderr.contains("header 'Authorization'"), "\(token.stderr)")
        #expect(server.requests().isEmpty, "a request went out: \(server.requests().map(\.headers))")
    }

    /// A refresh response whose token would split the Authorization header: not adopted, not
    /// stored, never sent; the run stops with exit 2 naming the header.
    @Test func refreshedTokenWithALineBreakIsNeverSent() throws {
        let dir = TestDirectory("resync-crlf-refresh")
        let server = try ResyncIngestServer(dir, behaviour: [
            "auth": ["paths": ["/locs"], "valid": []],
            "refresh": ["path": "/refresh", "issue": ["evil-token\r\nX-Admin: 1"]]])
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: ["authorization": ["accessToken": "old-access-1"]])
        let result = try ResyncEndToEndTests.resync(dump, dir, ["--url", server.url("/locs"), "--max-attempts", "3",
                                                                "--set", "authorization.refreshUrl=\(server.url("/refresh"))", "--json"])
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains("header 'Authorization'") && result.stderr.contains("carriage return (CR)"), "\(result.stderr)")
        #expect(server.requests().map(\.path) == ["/locs", "/refresh"])
        #expect(!server.requests().contains { $0.headers.valueIgnoringCase("X-Admin") != nil })
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT count(*) FROM auth")
        #expect(try stmt.step() && stmt.int(0) == 0)
        #expect(try ResyncEndToEndTests.summary(result)["remaining"] == .int(2))
    }
}
