import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// "No command ever writes to an input dump or its -wal/-shm/-journal": every command that reads a dump is
/// run on a WAL-mode dump whose newest rows live only in the -wal, and the SHA-256, size and
/// modification time of all three files must be identical afterwards.
@Suite struct EvidenceUntouchedTests {
    private static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples").path

    private struct Fingerprint: Equatable {
        let sha256: String
        let bytes: Int
        let modified: Date?
    }

    private static func fingerprints(_ path: String) throws -> [String: Fingerprint] {
        var out: [String: Fingerprint] = [:]
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] where FileManager.default.fileExists(atPath: file) {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            out[file] = Fingerprint(sha256: try EvidenceCopy.sha256(ofFile: file), bytes: (attributes[.size] as? Int) ?? -1,
                                    modified: attributes[.modificationDate] as? Date)
        }
        return out
    }

    static let commands: [[String]] = [
        ["inspect", "--json"], ["locations", "--format", "ndjson"], ["logs", "--limit", "0"], ["replay", "--json", "--fixes"],
        ["timeline", "--json"], ["report", "-o", "OUT/r.html"], ["gpx", "-o", "OUT/t.gpx"], ["gpx", "--track", "raw", "-o", "OUT/raw.gpx"],
        ["resync", "--url", "http://127.0.0.1:9/never", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh", "--dry-run",
         "--work", "OUT/work"],
        ["sanitize", "-o", "OUT/sanitised.db"],
        ["export", "-o", "OUT/t.geojson", "--points"], ["export", "--format", "kml", "--track", "raw", "--points", "-o", "OUT/t.kml"],
        ["fleet", "-o", "OUT/rows.ndjson", "--findings", "OUT/findings.ndjson"],
    ]

    @Test(arguments: commands)
    func commandLeavesEvidenceUntouched(_ arguments: [String]) throws {
        let dir = TestDirectory("evidence")
        let dump = dir.file("bgeo.db")
        try FileManager.default.copyItem(atPath: Self.samples + "/wal-mode.db", toPath: dump)
        try FileManager.default.copyItem(atPath: Self.samples + "/wal-mode.db-wal", toPath: dump + "-wal")
        let before = try Self.fingerprints(dump)
        #expect(before.count == 2)
        let words = [arguments[0], dump] + arguments.dropFirst().map { $0.replacingOccurrences(of: "OUT", with: dir.path) }
        let result = try ToolRunner.run(words, currentDirectory: dir.path)
        #expect(result.exitCode == 0, "\(words.joined(separator: " ")): \(result.stderr)")
        #expect(try Self.fingerprints(dump) == before, "\(arguments[0]) changed the evidence")
        #expect(!FileManager.default.fileExists(atPath: dump + "-shm"), "\(arguments[0]) created a -shm beside the evidence")
    }

    /// The same with a hot `-journal` beside a rollback-mode dump: SQLite rolls back the private
    /// copy, never the evidence — the journal stays, with its bytes and modification time.
    @Test(arguments: commands)
    func commandLeavesAHotJournalAndItsDumpUntouched(_ arguments: [String]) throws {
        let dir = TestDirectory("evidence-journal")
        let dump = try HotJournalDump.hot(in: dir)
        try FileManager.default.removeItem(atPath: dir.file("live.db"))
        let before = try Self.fingerprints(dump)
        #expect(before.count == 2)
        let words = [arguments[0], dump] + arguments.dropFirst().map { $0.replacingOccurrences(of: "OUT", with: dir.path) }
        let result = try ToolRunner.run(words, currentDirectory: dir.path)
        #expect(result.exitCode == 0, "\(words.joined(separator: " ")): \(result.stderr)")
        #expect(try Self.fingerprints(dump) == before, "\(arguments[0]) changed the evidence")
    }
}
