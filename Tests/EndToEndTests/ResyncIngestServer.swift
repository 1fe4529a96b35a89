import Foundation
@testable import BGeoReader
@testable import BGeoForensics

/// The programmable Python ingest server (Fixtures/ingest_server.py) on a free 127.0.0.1 port.
/// Every request it saw is in `requests()`; stopped (by its own pid) when released.
final class ResyncIngestServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    let recordPath: String
    /// `https` when started with a certificate.
    let scheme: String

    static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/ingest_server.py").path
    }

    init(_ dir: TestDirectory, behaviour: JSONValue = [:], tlsCertificate: String? = nil) throws {
        let tag = UUID().uuidString.prefix(8)
        let behaviourPath = dir.file("behaviour-\(tag).json")
        let portPath = dir.file("port-\(tag)")
        recordPath = dir.file("requests-\(tag).ndjson")
        try behaviour.jsonText.write(toFile: behaviourPath, atomically: true, encoding: .utf8)
        scheme = tlsCertificate == nil ? "http" : "https"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.scriptPath, "--port-file", portPath, "--record", recordPath, "--behaviour", behaviourPath]
            + (tlsCertificate.map { ["--tls-cert", $0] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var found: Int?
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: portPath, encoding: .utf8), let p = Int(text) { found = p; break }
            usleep(25_000)
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadNoSuchFile)
        }
        port = found
    }

    deinit {
        // SIGKILL by our own child's pid: a child spawned from the test runner may inherit a
        // signal mask that blocks SIGTERM, so terminate() alone can leave it running forever.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// The server's own process id (to sample, signal or wait for it).
    var pid: Int32 { process.processIdentifier }

    /// One recorded request.
    struct Seen {
        let path: String
        let method: String
        let headers: JSONObject
        let body: String
        let status: Int
        let time: Double
        /// The number of the connection it came on (1 = the first the server accepted).
        let connection: Int
        var json: JSONValue? { try? JSONParser.parse(body) }
        func header(_ name: String) -> String? { headers.valueIgnoringCase(name)?.stringValue }

        /// The uuids a location body carries (any shape).
        var uuids: [String] {
            guard let body = json else { return [] }
            for member in body.objectValue ?? JSONObject() {
                if case .array(let items) = member.value, items.allSatisfy({ $0["uuid"] != nil }) {
                    return items.compactMap { $0["uuid"]?.stringValue }
                }
                if case .object(let object) = member.value, let uuid = object["uuid"]?.stringValue { return [uuid] }
            }
            return [body["uuid"]?.stringValue].compactMap { $0 }
        }
    }

    func requests() -> [Seen] {
        guard let text = try? String(contentsOfFile: recordPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let v = try? JSONParser.parse(String(line)) else { return nil }
            return Seen(path: v["path"]?.stringValue ?? "", method: v["method"]?.stringValue ?? "",
                        headers: v["headers"]?.objectValue ?? JSONObject(), body: v["body"]?.stringValue ?? "",
                        status: v["status"]?.intValue ?? -1, time: v["t"]?.doubleValue ?? 0,
                        connection: v["conn"]?.intValue ?? -1)
        }
    }

    /// uuids the server acknowledged with a 2xx on `path`.
    func delivered(_ path: String = "/locs") -> [String] {
        requests().filter { $0.path == path && (200...299).contains($0.status) }.flatMap(\.uuids)
    }
}
