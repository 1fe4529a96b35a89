import BGeoForensics
import Foundation
import Testing

/// `export` as a user runs it: formats by option or extension, counts, the same GPX as `gpx`,
/// usage errors, and an output that would overwrite the evidence refused.
@Suite struct ExportCommandTests {
    @Test func writesGeoJSONAndKMLWithCounts() throws {
        for (name, format) in [("t.geojson", "geojson"), ("t.kml", "kml")] {
            let out = ReportE2E.directory.file(name)
            let result = try ToolRunner.run(["export", ReportE2E.dump, "-o", out, "--points", "--json"])
            #expect(result.exitCode == 0, "\(result.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(json["format"] as? String == format && json["track"] as? String == "replayed")
            #expect(json["lines"] as? Int == 2 && (json["fixes"] as? Int ?? 0) > 200)
            #expect(result.stderr.contains("note: replayed with state.config"))
        }
        let geojson = try String(contentsOfFile: ReportE2E.directory.file("t.geojson"), encoding: .utf8)
        #expect(geojson.hasPrefix(#"{"type":"FeatureCollection","name":"demo.db","bbox":["#))
        let kml = try String(contentsOfFile: ReportE2E.directory.file("t.kml"), encoding: .utf8)
        #expect(kml.contains("<kml xmlns=\"http://www.opengis.net/kml/2.2\">") && kml.contains("<styleUrl>#rejected</styleUrl>"))
        if let xmllint = ReportE2E.tool("xmllint") {
            #expect(try ReportE2E.run(xmllint, ["--noout", ReportE2E.directory.file("t.kml")]).exitCode == 0)
        }
    }

    @Test func streamsToStandardOutputAndSaysWhatItWrote() throws {
        let piped = try ToolRunner.run(["export", ReportE2E.dump, "--format", "geojson", "--track", "recorded", "-o", "-"])
        #expect(piped.exitCode == 0)
        #expect(piped.stdout.hasSuffix("\n]}\n") && (try? JSONSerialization.jsonObject(with: Data(piped.stdout.utf8))) != nil)
        let out = ReportE2E.directory.file("said.kml")
        let told = try ToolRunner.run(["export", ReportE2E.dump, "-o", out, "--track", "raw"])
        #expect(told.stderr.contains("wrote \(out) (kml): ") && told.stderr.contains("track points in 2 lines"))
    }

    /// `export --format gpx` is the `gpx` command's file, byte for byte.
    @Test func gpxFormatIsTheGPXCommandsFile() throws {
        let a = ReportE2E.directory.file("a.gpx"), b = ReportE2E.directory.file("b.gpx")
        for mode in ["replayed", "raw"] {
            #expect(try ToolRunner.run(["gpx", ReportE2E.dump, "--track", mode, "-o", a, "--generated-at", "2026-08-01T00:00:00Z"]).exitCode == 0)
            #expect(try ToolRunner.run(["export", ReportE2E.dump, "--format", "gpx", "--track", mode, "-o", b,
                                        "--generated-at", "2026-08-01T00:00:00Z"]).exitCode == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
        }
    }

    @Test func gapAndSetChangeTheTrack() throws {
        let out = ReportE2E.directory.file("gap.geojson")
        let oneLine = try ToolRunner.run(["export", ReportE2E.dump, "-o", out, "--gap", "2h", "--json"])
        #expect(oneLine.stdout.contains("\"lines\": 1"))
        let single = try String(contentsOfFile: out, encoding: .utf8)
        #expect(single.contains(#""geometry":{"type":"LineString""#))
        let root = try JSONSerialization.jsonObject(with: Data(single.utf8)) as? [String: Any]
        let track = (root?["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any]
        #expect((track?["coordinates"] as? [[Double]])?.count ?? 0 > 200)
        let whatIf = try ToolRunner.run(["export", ReportE2E.dump, "-o", out, "--set", "locationFilterPolicy=Conservative", "--json"])
        #expect(whatIf.exitCode == 0 && whatIf.stderr.contains("overridden by locationFilterPolicy=Conservative"))
    }

    @Test func usageErrorsExitTwo() throws {
        let out = ReportE2E.directory.file("u.geojson")
        for words in [["export", ReportE2E.dump], ["export", ReportE2E.dump, "-o", ReportE2E.directory.file("u.txt")],
                      ["export", ReportE2E.dump, "-o", out, "--format", "shp"], ["export", ReportE2E.dump, "-o", out, "--track", "sideways"],
                      ["export", ReportE2E.dump, "-o", out, "--track", "raw", "--set", "locationFilterMaxSpeed=30"],
                      ["export", ReportE2E.dump, "-o", ReportE2E.directory.file("u.gpx"), "--points"],
                      ["export", ReportE2E.dump, "-o", out, "--gap", "0"], ["export", ReportE2E.dump, "-o", "-", "--json"]] {
            let result = try ToolRunner.run(words)
            #expect(result.exitCode == 2, "\(words): \(result.stderr)")
            #expect(result.stderr.contains("See 'bgeo-forensics export --help'"), "\(words): \(result.stderr)")
        }
        let help = try ToolRunner.run(["export", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--points") && help.stdout.contains("RFC 7946"))
    }

    /// A mistyped -o naming the dump (or its -wal) is refused before anything is written.
    @Test func refusesToOverwriteTheEvidence() throws {
        let dir = TestDirectory("export-evidence")
        let dump = dir.file("case.kml")  // a dump whose name looks like an output
        try FileManager.default.copyItem(atPath: ReportE2E.dump, toPath: dump)
        let before = try EvidenceCopy.sha256(ofFile: dump)
        let result = try ToolRunner.run(["export", dump, "-o", dump])
        #expect(result.exitCode == 2 && result.stderr.contains("is the evidence file"))
        #expect(try EvidenceCopy.sha256(ofFile: dump) == before)
        #expect(try ToolRunner.run(["export", dump, "-o", dump + "-wal", "--format", "kml"]).exitCode == 2)
        #expect(!FileManager.default.fileExists(atPath: dump + "-wal"))
    }

    @Test func notADumpIsOneSentenceAndExitTwo() throws {
        let bogus = ReportE2E.directory.file("bogus.db")
        try "hello".write(toFile: bogus, atomically: true, encoding: .utf8)
        let result = try ToolRunner.run(["export", bogus, "-o", ReportE2E.directory.file("bogus.geojson")])
        #expect(result.exitCode == 2)
        #expect(result.stderr == "\(bogus) is not an SQLite database, so it is not a bgeo.db or LongPing dump.\n")
    }
}
