import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

/// A certificate authority made for one test, and an https server certificate it signed for
/// `IP:127.0.0.1`. The tool trusts it only inside a private mount namespace where a bundle of
/// the system CAs plus this CA is bind-mounted over the system bundle: the machine's own trust
/// store never changes (the tests run as root; `unshare -m` needs it).
final class TestCertificateAuthority: @unchecked Sendable {
    let dir: TestDirectory
    /// Server certificate and key in one PEM file (what `ingest_server.py --tls-cert` takes).
    let serverPEM: String
    /// The system bundle plus this CA.
    let bundle: String

    /// Why https tests cannot run here, or nil.
    static var unavailable: String? {
        if getuid() != 0 { return "the https tests need root (unshare -m, mount --bind)" }
        for tool in ["/usr/bin/openssl", "/usr/bin/unshare"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (.ci/run installs openssl and util-linux)"
        }
        return nil
    }

    init(_ label: String = "tls") throws {
        dir = TestDirectory("ca-" + label)
        let caKey = dir.file("ca.key"), caPEM = dir.file("ca.pem")
        let key = dir.file("server.key"), csr = dir.file("server.csr"), cert = dir.file("server.crt")
        let ext = dir.file("server.ext")
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n"
            .write(toFile: ext, atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + ec + ["-keyout", caKey, "-out", caPEM, "-days", "2", "-subj", "/CN=bgeo-forensics test CA"])
        try Self.openssl(["req", "-new"] + ec + ["-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"])
        try Self.openssl(["x509", "-req", "-in", csr, "-CA", caPEM, "-CAkey", caKey, "-CAcreateserial", "-out", cert,
                          "-days", "2", "-extfile", ext])
        serverPEM = dir.file("server.pem")
        try (String(contentsOfFile: cert, encoding: .utf8) + String(contentsOfFile: key, encoding: .utf8))
            .write(toFile: serverPEM, atomically: true, encoding: .utf8)
        bundle = dir.file("bundle.pem")
        let system = (try? String(contentsOfFile: TLSContext.systemBundle, encoding: .utf8)) ?? ""
        try (system + "\n" + String(contentsOfFile: caPEM, encoding: .utf8)).write(toFile: bundle, atomically: true, encoding: .utf8)
    }

    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The words that run a command inside the namespace that trusts this CA.
    var launcher: [String] {
        ["/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
         #"mount --bind "$0" /etc/ssl/certs/ca-certificates.crt && exec "$@""#, bundle]
    }

    /// Runs the tool trusting this CA.
    func run(_ arguments: [String]) throws -> ToolResult {
        try ToolRunner.run(arguments, launcher: launcher)
    }
}
