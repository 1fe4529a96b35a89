import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSanitize
import BGeoSQLite

/// The library entry point on real SQLite files: what it refuses, what it leaves behind (nothing
/// but the output), and what the output says about itself.
@Suite struct SanitizerTests {
    static func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func writesOneVerifiedFileAndNothingElse() throws {
        let dir = TestDirectory("sanitize")
        try Fixtures.current(at: dir.file("bgeo.db"))
        let before = try EvidenceCopy.sha256(ofFile: dir.file("bgeo.db"))
        let report = try Sanitizer.run(dumpPath: dir.file("bgeo.db"), outputPath: dir.file("out.db"), options: SanitizeOptions())
        #expect(Self.files(in: dir.path) == ["bgeo.db", "out.db"])
        #expect(try EvidenceCopy.sha256(ofFile: dir.file("bgeo.db")) == before)
        #expect(report.evidenceUnchanged)
        #expect(report.outputSHA256 == (try EvidenceCopy.sha256(ofFile: dir.file("out.db"))))
        #expect(report.check.passed && report.check.integrity == "ok" && report.check.freelistPages == 0)
        // Every row copied, with its id.
        #expect(report.table("location_events")?.rows == 6 && report.table("log_entries")?.rows == 6)
        #expect((report.table("state")?.tally("value").secrets ?? 0) >= 2)
        let out = try Dump(path: dir.file("out.db"))
        #expect(out.layout == (try Dump(path: dir.file("bgeo.db"))).layout.with(tables: out.layout.tables))
        let marker = try #require(out.sanitizationMarker())
        #expect(marker.json["options"] == SanitizeOptions().json)
        #expect(marker.json["source"]?["sha256"]?.stringValue == before)
        #expect(marker.expiry(ofToken: Redactor.fingerprint(Fixtures.accessToken)) == 1_784_880_000)
        let raw = try Data(contentsOf: URL(fileURLWithPath: dir.file("out.db")))
        for secret in [Fixtures.accessToken, Fixtures.refreshToken, Fixtures.apiKey] {
            #expect(raw.range(of: Data(secret.utf8)) == nil, "\(secret) in the output's bytes")
        }
    }

    @Test func refusesToOverwriteWithoutForceAndNeverWritesTheInput() throws {
        let dir = TestDirectory("sanitize-refuse")
        try Fixtures.current(at: dir.file("bgeo.db"))
        let input = dir.file("bgeo.db")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: dir.file("existing.db")))
        #expect(throws: SanitizeError.outputExists(path: dir.file("existing.db"))) {
            try Sanitizer.run(dumpPath: input, outputPath: dir.file("existing.db"), options: SanitizeOptions())
        }
        #expect(try String(contentsOfFile: dir.file("existing.db"), encoding: .utf8) == "keep me")
        var force = SanitizeOptions()
        force.force = true
        #expect(throws: SanitizeError.outputIsInput(path: input)) { try Sanitizer.run(dumpPath: input, outputPath: input, options: force) }
        let dotted = dir.path + "/./bgeo.db"
        #expect(throws: SanitizeError.outputIsInput(path: dotted)) { try Sanitizer.run(dumpPath: input, outputPath: dotted, options: force) }
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.db"), withDestinationPath: input)
        #expect(throws: SanitizeError.outputIsInput(path: dir.file("link.db"))) {
            try Sanitizer.run(dumpPath: input, outputPath: dir.file("link.db"), options: force)
        }
        try FileManager.default.linkItem(atPath: input, toPath: dir.file("hard.db"))
        #expect(throws: SanitizeError.outputIsInput(path: dir.file("hard.db"))) {
            try Sanitizer.run(dumpPath: input, outputPath: dir.file("hard.db"), options: force)
        }
        #expect(throws: SanitizeError.outputIsEvidenceSideFile(path: input + "-wal")) {
            try Sanitizer.run(dumpPath: input, outputPath: input + "-wal", options: force)
        }
        #expect(throws: SanitizeError.outputFolderMissing(path: dir.file("no/such/out.db"), folder: dir.file("no/such"))) {
            try Sanitizer.run(dumpPath: input, outputPath: dir.file("no/such/out.db"), options: SanitizeOptions())
        }
        // --force replaces the existing file, and removes a stale -wal SQLite would otherwise apply to it.
        try Data("stale".utf8).write(to: URL(fileURLWithPath: dir.file("existing.db-wal")))
        #expect(throws: SanitizeError.sideFileExists(path: dir.file("existing.db-wal"))) {
            try? FileManager.default.removeItem(atPath: dir.file("existing.db"))
            try Sanitizer.run(dumpPath: input, outputPath: dir.file("existing.db"), options: SanitizeOptions())
        }
        _ = try Sanitizer.run(dumpPath: input, outputPath: dir.file("existing.db"), options: force)
        #expect(!FileManager.default.fileExists(atPath: dir.file("existing.db-wal")))
        #expect(try Dump(path: dir.file("existing.db")).sanitizationMarker() != nil)
    }

    @Test func aFailureHalfWayLeavesNoOutputAndNoWorkingFile() throws {
        // A hostile schema whose CHECK fails with an error (an integer overflow, not a refusal)
        // on what sanitising writes: the insert fails mid-copy. (A row the CHECK merely refuses is
        // left out and said: SanitizeCommand and FuzzFindingsTests.)
        let dir = TestDirectory("sanitize-fail")
        let db = try Database(path: dir.file("bgeo.db"), mode: .readWriteCreate)
        try db.execute("""
            CREATE TABLE log_entries (id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, level INTEGER NOT NULL,
              src TEXT NOT NULL, event TEXT NOT NULL,
              message TEXT CHECK (message NOT LIKE '‹%' OR abs(-9223372036854775807 - 1 + length(message) * 0)), data TEXT,
              uploaded INTEGER NOT NULL DEFAULT 0);
            INSERT INTO log_entries (ts, level, src, event, message) VALUES ('2026-07-24T09:00:00Z', 3, 'native', 'session.start', 'hi');
            INSERT INTO log_entries (ts, level, src, event, message) VALUES ('2026-07-24T09:00:01Z', 3, 'js', 'app', 'customer note');
            """)
        _ = db
        #expect(throws: SanitizeError.self) {
            try Sanitizer.run(dumpPath: dir.file("bgeo.db"), outputPath: dir.file("out.db"), options: SanitizeOptions())
        }
        #expect(Self.files(in: dir.path) == ["bgeo.db"], "no output, no working database, no staged copy")
    }

    /// A text cell with a NUL inside was bound as a C string: the sanitised copy kept it only up
    /// to the NUL, losing the rest of the cell silently. It is copied whole now.
    @Test func aTextWithANulInsideIsCopiedWhole() throws {
        let dir = TestDirectory("sanitize-nul")
        try Fixtures.current(at: dir.file("bgeo.db"))
        let text = Array("wifi lost".utf8) + [0] + Array(" and the rest of the line after the NUL".utf8)
        let hex = text.map { String(format: "%02x", $0) }.joined()
        do {
            let db = try Database(path: dir.file("bgeo.db"), mode: .readWriteCreate)
            try db.execute("INSERT INTO log_entries (ts, level, src, event, message) VALUES "
                           + "('2026-03-01T06:00:00.000Z', 3, 'native', 'connectivity', CAST(x'\(hex)' AS TEXT))")
        }
        _ = try Sanitizer.run(dumpPath: dir.file("bgeo.db"), outputPath: dir.file("out.db"), options: SanitizeOptions())
        let out = try Database(path: dir.file("out.db"), mode: .readOnly)
        let stmt = try out.prepare("SELECT hex(CAST(message AS BLOB)) FROM log_entries WHERE event = 'connectivity' AND message LIKE 'wifi lost%'")
        #expect(try stmt.step())
        #expect(stmt.text(0) == hex.uppercased())
    }

    /// Regression (stop 47): the survey learns a secret from any row's JSON under a key that
    /// names one, but it parsed only rows whose bytes spell such a name in ASCII: a header key
    /// written with U+212A KELVIN SIGN ("to\u{212A}en", a token once lowercased) had its value
    /// replaced in that cell, while the same value written plainly in another row stayed in the
    /// copy (an ASCII `token` key had it replaced there too).
    @Test func aSecretUnderAKeySpelledWithAKelvinSignIsReplacedEverywhere() throws {
        let dir = TestDirectory("sanitize-kelvin")
        try Fixtures.current(at: dir.file("bgeo.db"))
        let secret = "Zq9x-kelvin-header-value"
        do {
            let db = try Database(path: dir.file("bgeo.db"), mode: .readWriteCreate)
            try db.execute("""
                INSERT INTO log_entries (ts, level, src, event, message, data) VALUES
                  ('2026-07-24T09:00:06.000Z', 3, 'native', 'http.request', 'request',
                   '{"url":"https://ingest.example/v1","h":{"to\u{212A}en":"\(secret)"}}'),
                  ('2026-07-24T09:00:07.000Z', 3, 'native', 'note', 'the value \(secret) again', '{"note":"plain \(secret)"}')
                """)
        }
        _ = try Sanitizer.run(dumpPath: dir.file("bgeo.db"), outputPath: dir.file("out.db"), options: SanitizeOptions())
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("out.db")))
        #expect(bytes.range(of: Data(secret.utf8)) == nil)
        let out = try Database(path: dir.file("out.db"), mode: .readOnly)
        let stmt = try out.prepare("SELECT message FROM log_entries WHERE event = 'note'")
        #expect(try stmt.step())
        #expect(stmt.text(0)?.contains("‹redacted sha256:") == true)
    }

    @Test func aSanitisedDumpCanBeSanitisedAgainAndKeepsItsFingerprints() throws {
        let dir = TestDirectory("sanitize-twice")
        try Fixtures.current(at: dir.file("bgeo.db"))
        _ = try Sanitizer.run(dumpPath: dir.file("bgeo.db"), outputPath: dir.file("once.db"), options: SanitizeOptions())
        _ = try Sanitizer.run(dumpPath: dir.file("once.db"), outputPath: dir.file("twice.db"), options: SanitizeOptions())
        let twice = try Dump(path: dir.file("twice.db"))
        #expect(twice.engineState().auth?["accessToken"]?.stringValue == Redactor.fingerprint(Fixtures.accessToken))
        #expect(twice.sanitizationMarker()?.json["previous"] != nil)
        #expect(twice.sanitizationMarker()?.expiry(ofToken: Redactor.fingerprint(Fixtures.accessToken)) == 1_784_880_000)
    }

    @Test func temporaryFilesAreRemovedWhenReleased() throws {
        let dir = TestDirectory("sanitize-temp")
        do {
            let temporary = TemporaryFiles()
            temporary.register(dir.file("a.work"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("a.work")))
            try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("a.work-journal")))
            _ = temporary
        }
        #expect(Self.files(in: dir.path).isEmpty)
    }
}

extension DumpLayout {
    /// The same layout with another table list (the copy may add `state` for its marker).
    func with(tables: [String]) -> DumpLayout {
        var copy = self
        copy.tables = tables
        return copy
    }
}
