import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// One redactor at every sink (issue 23): the same secret set and the same rules for every
/// output of every command — text, JSON, NDJSON, Timesketch JSONL, CSV, HTML, GPX, KML, GeoJSON,
/// fleet rows and findings, sanitised copies — on a dump that holds its secrets in the forms that leaked before
/// (`SecretFormsDump`). With `--show-secrets` the same outputs do hold them (the test can fail).
@Suite(.serialized) struct SecretsAtEverySinkTests {
    static let dir = TestDirectory("secret-sinks")
    static let dump: String = {
        let path = dir.file("forms.db")
        do { try SecretFormsDump.write(to: path) } catch { fatalError("\(error)") }
        return path
    }()

    /// Every command and format that prints or writes dump text; a file output is read back.
    static func outputs(showSecrets: Bool) throws -> [(name: String, text: String)] {
        let out = dir.file(showSecrets ? "shown" : "redacted")
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let show = showSecrets ? ["--show-secrets"] : []
        var runs: [(name: String, words: [String], file: String?)] = [
            ("inspect", ["inspect", dump], nil), ("inspect --json", ["inspect", dump, "--json"], nil),
            ("timeline", ["timeline", dump], nil), ("timeline --json", ["timeline", dump, "--json"], nil),
            ("timeline timesketch", ["timeline", dump, "--format", "timesketch"], nil),
            ("replay --json", ["replay", dump, "--json", "--fixes"], nil),
            ("report", ["report", dump, "-o", out + "/r.html"], out + "/r.html"),
            ("gpx", ["gpx", dump, "-o", out + "/t.gpx"], out + "/t.gpx"),
            ("geojson", ["export", dump, "--points", "-o", out + "/t.geojson"], out + "/t.geojson"),
            ("kml", ["export", dump, "--points", "-o", out + "/t.kml"], out + "/t.kml"),
            ("fleet", ["fleet", dump, "-o", out + "/f.ndjson", "--findings", out + "/g.ndjson"], out + "/f.ndjson"),
            ("fleet findings", ["true"], out + "/g.ndjson"),
        ]
        for format in ["table", "csv", "ndjson", "json"] {
            runs.append(("logs \(format)", ["logs", dump, "--limit", "0", "--format", format], nil))
            runs.append(("locations \(format)", ["locations", dump, "--format", format], nil))
        }
        var texts: [(String, String)] = []
        for run in runs {
            var output = ""
            if run.words != ["true"] {
                let result = try ToolRunner.run(run.words + show)
                #expect(result.exitCode == 0, "\(run.name): \(result.stderr)")
                output = result.stdout + result.stderr
            }
            if let file = run.file { output += (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
            texts.append((run.name, output))
        }
        return texts
    }

    @Test func noOutputOfAnyCommandHoldsASecretInAnyForm() throws {
        for (name, text) in try Self.outputs(showSecrets: false) {
            for leak in SecretFormsDump.leaks where text.contains(leak) {
                Issue.record("\(name) shows \(leak)")
            }
        }
    }

    @Test func showSecretsShowsThem() throws {
        let texts = try Self.outputs(showSecrets: true)
        let logs = try #require(texts.first { $0.name == "logs ndjson" }?.text)
        for secret in [SecretFormsDump.bodyAccess, SecretFormsDump.basicCredentials, SecretFormsDump.headerLineKey,
                       SecretFormsDump.spacedAccess] {
            #expect(logs.contains(secret), "--show-secrets hid \(secret)")
        }
        let inspect = try #require(texts.first { $0.name == "inspect" }?.text)
        #expect(inspect.contains(SecretFormsDump.urlPassword) && inspect.contains(SecretFormsDump.accessKeyHeader))
    }

    /// `sanitize`'s default copy keeps none of them, nor the unknown table's secret columns or the
    /// JWT in a BLOB, and its own raw-byte check reports none; every form is searched in the file's
    /// bytes here too.
    @Test func theDefaultSanitisedCopyHoldsNoneInItsBytes() throws {
        for options in [[], ["--extras", "keep", "--urls", "keep", "--coords", "keep"]] {
            let out = Self.dir.file("sanitized-\(options.count).db")
            let result = try ToolRunner.run(["sanitize", Self.dump, "-o", out, "--force", "--json"] + options)
            #expect(result.exitCode == 0, "\(result.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            for leak in SecretFormsDump.sanitizeLeaks where bytes.range(of: Data(leak.utf8)) != nil {
                Issue.record("sanitize \(options) kept \(leak)")
            }
            let report = try JSONParser.parse(result.stdout)
            #expect(report["verification"]?["learnedSecretsInBytes"]?.intValue == 0, "\(result.stdout.prefix(400))")
        }
    }

    /// The unknown table's secret-named columns are fingerprinted as every output shows secrets.
    @Test func secretNamedColumnsOfAnUnknownTableBecomeFingerprints() throws {
        let out = Self.dir.file("sanitized-columns.db")
        let result = try ToolRunner.run(["sanitize", Self.dump, "-o", out, "--force"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let db = try Database(path: out, mode: .readOnly)
        let stmt = try db.prepare("SELECT password, api_key, refresh_token FROM creds")
        #expect(try stmt.step())
        #expect(stmt.text(0) == Redactor.fingerprint(SecretFormsDump.columnPassword))
        #expect(stmt.text(1) == Redactor.fingerprint(SecretFormsDump.columnApiKey))
        #expect(stmt.text(2) == Redactor.fingerprint(SecretFormsDump.columnRefresh))
    }
}
