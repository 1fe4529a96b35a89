import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoFleet
@testable import BGeoSimulation

/// The pieces of `fleet` that need no child process: the walk, the row, the ledger's resume rules.
@Suite struct FleetPartsTests {
    static let directory = TestDirectory("fleet-parts")

    @Test func walkSkipsCompanionsHiddenEntriesNonFilesAndTheOutputs() throws {
        let root = FleetPartsTests.directory.file("walk-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/sub/deeper", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/.hidden", withIntermediateDirectories: true)
        for name in ["b.db", "b.db-wal", "b.db-shm", "a.db", "orphan.db-wal", "notes.txt", ".DS_Store", "sub/c.db", "sub/deeper/d.db",
                     ".hidden/e.db", "out.ndjson"] {
            try "x".write(toFile: root + "/" + name, atomically: false, encoding: .utf8)
        }
        mkfifo(root + "/pipe", 0o600)
        try fm.createSymbolicLink(atPath: root + "/loop", withDestinationPath: root)
        try fm.createSymbolicLink(atPath: root + "/link.db", withDestinationPath: root + "/a.db")
        let inputs = FleetInputs.collect([root, root + "/a.db", root + "/missing.db", root + "/pipe", root + "/out.ndjson"],
                                         excluding: [root + "/out.ndjson"])
        let names = inputs.map { String($0.path.dropFirst(root.count + 1)) }
        // a.db found, named, and linked to is one input; the link to the folder is not walked.
        #expect(names == ["a.db", "b.db", "notes.txt", "orphan.db-wal", "sub/c.db", "sub/deeper/d.db", "missing.db", "pipe"])
        #expect(inputs.filter { $0.problem != nil }.map { String($0.path.dropFirst(root.count + 1)) } == ["missing.db", "pipe"])
        #expect(inputs.last?.problem?.contains("not a regular file") == true)
    }

    /// Every row has the same keys in the same order, analysed or not.
    @Test func analysedAndFailedRowsShareOneSchema() throws {
        let ok = FleetAnalysis.analyse(path: ReportFixture.dumpPath)
        #expect(ok.row.members.map(\.key) == FleetRow.keys)
        #expect(ok.row["status"]?.stringValue == "ok")
        let text = FleetPartsTests.directory.file("notes-\(UUID().uuidString).txt")
        try "not a dump".write(toFile: text, atomically: false, encoding: .utf8)
        let bad = FleetAnalysis.analyse(path: text)
        #expect(bad.row.members.map(\.key) == FleetRow.keys)
        #expect(bad.row["status"]?.stringValue == "not_a_dump" && bad.row["exitCode"]?.intValue == 2)
        #expect(bad.row["error"]?.stringValue == DumpError.notADatabase(path: text).description)
        #expect(bad.row["sha256"]?.stringValue == (try EvidenceCopy.sha256(ofFile: text)))
        #expect(bad.findings.isEmpty)
    }

    /// The demo dump plants secrets in its config and state: no row or finding line carries one;
    /// its device model has markup, kept as text; the findings match the timeline's.
    @Test func rowAndFindingsAreRedactedAndMatchTheTimeline() throws {
        let out = FleetAnalysis.analyse(path: ReportFixture.dumpPath)
        let lines = [JSONWriter().string(.object(out.row))] + out.findings.map { JSONWriter().string(.object($0)) }
        for secret in ReportDemoDump.plantedSecrets { #expect(!lines.contains { $0.contains(secret) }, "\(secret) leaked") }
        let shown = FleetAnalysis.analyse(path: ReportFixture.dumpPath, showSecrets: true)
        #expect(JSONWriter().string(.object(shown.row)).contains("api.example.invalid"))
        #expect(out.row["device"]?["model"]?.stringValue == "Pixel <b>8</b>")
        let timeline = TimelineBuilder(dump: try Dump(path: ReportFixture.dumpPath)).build()
        #expect(out.findings.map { $0["code"]?.stringValue ?? "" } == timeline.findings.map(\.code))
        var codes: [String] = []
        for f in timeline.findings where !codes.contains(f.code) { codes.append(f.code) }
        #expect(out.row["findingCodes"]?.arrayValue?.compactMap(\.stringValue) == codes)
        #expect(out.findings.allSatisfy { $0["sha256"]?.stringValue == out.row["sha256"]?.stringValue && $0["first"] != .null })
        #expect(out.row["config"]?["urlHost"]?.stringValue == "api.example.invalid")
        #expect(out.row["odometer"]?["replayed"]?.doubleValue ?? 0 > 0)
    }

    @Test func hugeStringsAreClipped() {
        #expect(FleetRow.clip(String(repeating: "x", count: 100_000)).stringValue?.count == FleetRow.maxText)
        #expect(FleetRow.host(of: "https://user:pw@ingest.example:8443/path?token=abc") == .string("ingest.example"))
        #expect(FleetRow.host(of: "not a url") == .null)
    }

    // MARK: ledger

    static func row(_ sha: String, status: FleetRowStatus = .ok, wal: String? = nil) -> String {
        var object = FleetRow.failure(path: "/d/\(sha).db", size: 1, sha256: sha, walSha256: wal, status: status, error: "", exitCode: 0)
        object["error"] = .null
        return JSONWriter().string(.object(object))
    }

    static func finding(_ sha: String) -> String {
        JSONWriter().string(["sha256": .string(sha), "walSha256": .null, "code": "queue.stranded"])
    }

    /// A kill mid-write leaves a cut last line: resuming drops it (and the failed rows, to retry
    /// them), keeps the rest byte for byte, and keeps only the findings of dumps still done.
    @Test func resumeRepairsACutLineAndRetriesFailedRows() throws {
        let out = FleetPartsTests.directory.file("rows-\(UUID().uuidString).ndjson")
        let findings = FleetPartsTests.directory.file("findings-\(UUID().uuidString).ndjson")
        let kept = [FleetPartsTests.row("aaa"), FleetPartsTests.row("bbb", status: .notADump), FleetPartsTests.row("ccc", wal: "www")]
        let cut = String(FleetPartsTests.row("ddd").prefix(40))
        try (kept.joined(separator: "\n") + "\n" + FleetPartsTests.row("eee", status: .failed) + "\n" + FleetPartsTests.row("aaa") + "\n" + cut)
            .write(toFile: out, atomically: false, encoding: .utf8)
        try ([FleetPartsTests.finding("aaa"), FleetPartsTests.finding("ddd"), FleetPartsTests.finding("eee")].joined(separator: "\n") + "\n")
            .write(toFile: findings, atomically: false, encoding: .utf8)
        let ledger = try FleetLedger(outputPath: out, findingsPath: findings)
        #expect(ledger.doneKeys == ["aaa", "bbb", "ccc+www"])
        #expect(ledger.resumedRows == 3 && ledger.droppedRows == 3)  // failed eee, duplicate aaa, cut ddd
        #expect(try String(contentsOfFile: out, encoding: .utf8) == kept.joined(separator: "\n") + "\n")
        #expect(try String(contentsOfFile: findings, encoding: .utf8) == FleetPartsTests.finding("aaa") + "\n")
        #expect(!ledger.claim("aaa") && ledger.claim("eee") && !ledger.claim("eee"))
        ledger.append(row: FleetPartsTests.row("eee"), findings: [FleetPartsTests.finding("eee")])
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4 && lines.last.map(String.init) == FleetPartsTests.row("eee"))
        #expect(try String(contentsOfFile: findings, encoding: .utf8).split(separator: "\n").count == 2)
    }

    @Test func aFileThatIsNotAFleetOutputIsNeverTouched() throws {
        let path = FleetPartsTests.directory.file("precious-\(UUID().uuidString).txt")
        let text = "line one\nline two\n" + FleetPartsTests.row("aaa") + "\n"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: UsageError.self) { try FleetLedger(outputPath: path, findingsPath: nil) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    /// Even a one-line file that is not ours (with or without its newline) is refused, untouched.
    @Test(arguments: ["hello", "hello\n", "{\"other\": 1}\n"])
    func aOneLineForeignFileIsRefused(text: String) throws {
        let path = FleetPartsTests.directory.file("foreign-\(UUID().uuidString).txt")
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: UsageError.self) { try FleetLedger(outputPath: path, findingsPath: nil) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    /// The earlier run's file is read in 1 MiB chunks: lines that straddle chunks are read whole,
    /// and the repaired file is the complete lines, byte for byte.
    @Test func resumeReadsLongFilesAcrossChunks() throws {
        let path = FleetPartsTests.directory.file("long-\(UUID().uuidString).ndjson")
        let rows = (0..<4000).map { FleetPartsTests.row(String(format: "%064x", $0)) }
        let complete = rows.joined(separator: "\n") + "\n"
        #expect(complete.utf8.count > 1 << 20)
        try (complete + String(FleetPartsTests.row("cut").prefix(25))).write(toFile: path, atomically: false, encoding: .utf8)
        let ledger = try FleetLedger(outputPath: path, findingsPath: nil)
        #expect(ledger.resumedRows == 4000 && ledger.droppedRows == 1 && ledger.doneKeys.count == 4000)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == complete)
    }

    @Test func progressLineCountsWithoutPaths() {
        var s = FleetRunSummary()
        s.inputs = 100
        s.analysed = 40; s.notDumps = 3; s.failed = 1; s.skipped = 6
        let line = FleetProgress.line(s, elapsed: 10)
        #expect(line.hasPrefix("fleet [############------------] 50/100"))
        #expect(line.contains("3 not dumps") && line.contains("1 failed") && line.contains("6 skipped") && line.contains("4.4/s"))
        #expect(line.contains("ETA 11 s"))
    }
}

extension FleetPartsTests {
    /// A file whose name is not UTF-8 (bytes 0xFF 0xFE, made with the C API) was missing from the
    /// walk (FileManager drops it): it is an input, and its row shows the bytes as `\x{ff}` and
    /// carries them exactly, base64, in `pathBytes`.
    @Test func walkFindsANameThatIsNotUTF8AndItsRowCarriesItsBytes() throws {
        let root = FleetPartsTests.directory.file("bytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let raw = Array(root.utf8) + Array("/a-".utf8) + [0xFF, 0xFE] + Array(".db".utf8)
        let data = try Data(contentsOf: URL(fileURLWithPath: ReportFixture.dumpPath))
        let fd = (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
        try #require(fd >= 0)
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let inputs = FleetInputs.collect([root], excluding: [])
        #expect(inputs.count == 1 && inputs.first?.problem == nil)
        let row = try #require(inputs.first.map { FleetAnalysis.analyse(path: $0.path).row })
        #expect(row["status"]?.stringValue == "ok")
        #expect(row.members.map(\.key) == FleetRow.keys)
        let line = JSONWriter().string(.object(row))
        #expect(line.hasPrefix("{\"path\":\"\(root)/a-\\\\x{ff}\\\\x{fe}.db\",\"pathBytes\":\"\(Data(raw).base64EncodedString())\""), "\(line.prefix(300))")
    }

    /// `é.db` written precomposed and decomposed are two files (macOS clients make the second): Swift
    /// calls the two names equal, and the second got no row.
    @Test func namesThatOnlyLookEqualAreTwoInputs() throws {
        let root = FleetPartsTests.directory.file("nf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for name in ["\u{E9}.db", "e\u{301}.db", "e\u{301}.db-wal"] {
            let fd = open(root + "/" + name, O_WRONLY | O_CREAT, 0o644)
            try #require(fd >= 0)
            close(fd)
        }
        let inputs = FleetInputs.collect([root], excluding: [])
        let names = inputs.map { $0.path.utf8.split(separator: 0x2F).last.map(Array.init) ?? [] }
        #expect(names == [Array("e\u{301}.db".utf8), Array("\u{E9}.db".utf8)])
    }
}
