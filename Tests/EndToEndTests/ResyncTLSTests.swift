import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// "TLS certificate checks stay on": against an HTTPS server on 127.0.0.1 whose certificate is
/// self-signed (trusted by nobody), resync must refuse the connection — nothing delivered,
/// records kept, exit 3 — instead of quietly accepting any certificate.
@Suite struct ResyncTLSTests {
    @Test func untrustedCertificateIsRefusedAndNothingIsLost() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            Issue.record("openssl is not installed (.ci/run installs it)")
            return
        }
        let dir = TestDirectory("resync-tls")
        let pem = dir.file("server.pem")
        let key = dir.file("key.pem")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        make.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", pem, "-days", "1",
                          "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0)
        let combined = try String(contentsOfFile: pem, encoding: .utf8) + String(contentsOfFile: key, encoding: .utf8)
        try combined.write(toFile: pem, atomically: true, encoding: .utf8)

        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: [:])
        let server = try ResyncIngestServer(dir, tlsCertificate: pem)
        let url = server.url("/locs").replacingOccurrences(of: "http://", with: "https://")
        let result = try ResyncEndToEndTests.resync(dump, dir, ["--url", url, "--max-attempts", "1", "--json"])
        #expect(result.exitCode == 3, "\(result.stdout)\n\(result.stderr)")
        #expect(server.requests().isEmpty, "a request got through an untrusted certificate")
        let summary = try ResyncEndToEndTests.summary(result)
        #expect(summary["remaining"]?.intValue == 2)
        #expect(summary["delivered"]?.intValue == 0)
    }
}
