import BGeoForensics
import BGeoSimulation
import Foundation
import Testing

/// Shared by the report/GPX end-to-end suites: one demo dump, judges located once.
enum ReportE2E {
    static let directory = TestDirectory("report-e2e")
    static let dump: String = {
        let path = directory.file("demo.db")
        do { try ReportDemoDump.write(to: path) } catch { fatalError("fixture: \(error)") }
        return path
    }()

    /// The package root (…/Tests/EndToEndTests/<file> → three levels up).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func tool(_ name: String) -> String? {
        for folder in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        return nil
    }

    static var chromium: String? { tool("chromium") ?? tool("chromium-browser") ?? tool("google-chrome") }

    /// ../shared/schemas/gpx-1.1.xsd next to the repository (CI), else /work/shared.
    static var gpxSchema: String? {
        let candidates = [URL(fileURLWithPath: packageRoot).deletingLastPathComponent().appendingPathComponent("shared/schemas/gpx-1.1.xsd").path,
                          "/work/shared/schemas/gpx-1.1.xsd"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Runs an external program (in `folder`, with `environment`, when given); stdout and stderr separately.
    static func run(_ path: String, _ arguments: [String], in folder: String? = nil,
                    environment: [String: String]? = nil) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ToolResult(exitCode: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                          stderr: String(decoding: errData, as: UTF8.self))
    }

    /// The DOM after the page's scripts ran, from headless Chromium.
    static func renderedDOM(_ htmlPath: String) throws -> String {
        let profile = directory.file("chromium-\(UUID().uuidString)")
        let result = try run(chromium!, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)",
                                         "--dump-dom", URL(fileURLWithPath: htmlPath).absoluteString])
        return result.stdout
    }
}

@Suite struct ReportCommandTests {
    static let generatedAt = "2026-08-01T12:00:00Z"

    static let report: (path: String, html: String, result: ToolResult) = {
        let path = ReportE2E.directory.file("out/demo.html")
        do {
            // Like every -o, the report's folder must exist (OutputFile refuses a missing one).
            try FileManager.default.createDirectory(atPath: ReportE2E.directory.file("out"), withIntermediateDirectories: true)
            let result = try ToolRunner.run(["report", ReportE2E.dump, "-o", path, "--generated-at", generatedAt, "--max-rows", "80"])
            let html = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return (path, html, result)
        } catch {
            fatalError("report: \(error)")
        }
    }()

    @Test func writesOneFileWithHeader() throws {
        let (_, html, result) = ReportCommandTests.report
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stderr.contains("wrote "))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("generated 2026-08-01T12:00:00Z by bgeo-forensics \(ToolInfo.version)"))
        let input = try #require(try Dump(path: ReportE2E.dump).inputs.first)
        #expect(html.contains("SHA-256 \(input.sha256)"))
        #expect(html.contains("\(input.bytes) bytes"))
        #expect(html.contains("Content-Security-Policy"))
    }

    @Test func sameInputsSameBytes() throws {
        let again = ReportE2E.directory.file("again.html")
        let result = try ToolRunner.run(["report", ReportE2E.dump, "-o", again, "--generated-at", ReportCommandTests.generatedAt, "--max-rows", "80"])
        #expect(result.exitCode == 0)
        #expect(try String(contentsOfFile: again, encoding: .utf8) == ReportCommandTests.report.html)
    }

    @Test func secretsRedactedUnlessAsked() throws {
        let html = ReportCommandTests.report.html
        for secret in ReportDemoDump.plantedSecrets { #expect(!html.contains(secret)) }
        let shown = ReportE2E.directory.file("secrets.html")
        let result = try ToolRunner.run(["report", ReportE2E.dump, "-o", shown, "--show-secrets", "--generated-at", ReportCommandTests.generatedAt])
        #expect(result.exitCode == 0)
        let text = try String(contentsOfFile: shown, encoding: .utf8)
        #expect(text.contains(ReportDemoDump.plantedSecrets[0]))
    }

    /// `report DUMP` writes `<dump-name>.html` in the current folder, never into a `Reports/`
    /// folder (the repository's committed examples live there; issue 15).
    @Test func defaultOutputIsTheCurrentFolder() throws {
        let folder = TestDirectory("report-default")
        let result = try ToolRunner.run(["report", ReportE2E.dump, "--json", "--generated-at", ReportCommandTests.generatedAt],
                                        currentDirectory: folder.path)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.file("demo.html")))
        #expect(!FileManager.default.fileExists(atPath: folder.file("Reports")))
        #expect(result.stdout.contains("\"output\": \"demo.html\""))
        let help = try ToolRunner.run(["report", "--help"])
        #expect(help.stdout.contains("default ./<dump-name>.html"))
    }

    @Test func notADatabaseExitsTwo() throws {
        let bogus = ReportE2E.directory.file("notes.db")
        try "hello".write(toFile: bogus, atomically: true, encoding: .utf8)
        let result = try ToolRunner.run(["report", bogus, "-o", ReportE2E.directory.file("bogus.html")])
        #expect(result.exitCode == 2)
        #expect(!result.stderr.isEmpty)
        #expect(try ToolRunner.run(["report"]).exitCode == 2)
    }

    @Test(.enabled(if: ReportE2E.chromium != nil, "chromium is not installed: cannot check that the page's script runs"))
    func chromiumRunsTableScriptAndNotPlantedOnes() throws {
        let dom = try ReportE2E.renderedDOM(ReportCommandTests.report.path)
        #expect(dom.contains("data-tables-ready=\""), "the table script did not run (CSP hash mismatch?)")
        // Rows created by the script exist in every table.
        #expect(dom.contains("<tr id=\"queue-"))
        #expect(dom.contains("<tr id=\"log-"))
        #expect(dom.contains("<tr id=\"attempt-"))
        let ready = dom.range(of: #"data-tables-ready="(\d+)""#, options: .regularExpression).map { String(dom[$0]) } ?? ""
        #expect(ready != "data-tables-ready=\"0\"" && !ready.isEmpty)
        // The planted scripts would have changed the title and added #pwned.
        #expect(dom.contains("<title>demo.db — BGeo forensics report</title>"))
        #expect(!dom.contains("<div id=\"pwned\""), "a planted script ran")
        #expect(!dom.contains("<title>\(ReportDemoDump.plantedMarker)"))
    }

    /// On a terminal the stages show on one redrawn line, cleared before the closing "wrote …";
    /// into a pipe (every other test) stderr holds that line alone. The terminal is a real
    /// pseudo-terminal, made by Python's pty module.
    @Test func progressShowsOnATerminalOnly() throws {
        let out = ReportE2E.directory.file("pty.html")
        let (status, seen) = try ToolRunner.runOnTerminal(["report", ReportE2E.dump, "-o", out])
        #expect(status == 0, "\(seen)")
        #expect(seen.contains("report: reading the log and the queue…"))
        #expect(seen.contains("report: drawing the map, the charts and the tables into pty.html…"))
        // The live line is cleared, then the result is printed on a clean line.
        #expect(seen.contains("\r\u{1B}[2Kwrote \(out)"))

        let piped = try ToolRunner.run(["report", ReportE2E.dump, "-o", out])
        #expect(piped.exitCode == 0)
        #expect(!piped.stderr.contains("\u{1B}") && !piped.stderr.contains("…"))
        #expect(piped.stderr.split(separator: "\n").count == 1)
    }
}
