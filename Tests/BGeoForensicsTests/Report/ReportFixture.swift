import Foundation
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// One demo dump per test process, built once (real SQLite file), shared by the report suites.
enum ReportFixture {
    static let directory = TestDirectory("report-fixture")
    static let dumpPath: String = {
        let path = directory.file("demo.db")
        do { try ReportDemoDump.write(to: path) } catch { fatalError("fixture: \(error)") }
        if let keep = ProcessInfo.processInfo.environment["BGEO_KEEP_DUMP"] {
            try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(atPath: path, toPath: keep)
        }
        return path
    }()

    /// The report document and page for the demo dump, built once.
    static let built: (document: ReportDocument, html: String) = {
        do {
            let dump = try Dump(path: dumpPath)
            let document = try ReportBuilder.build(dump: dump, options: ReportOptions(generatedAt: 1_785_100_000, maxTableRows: 60))
            let html = HTMLReportRenderer().render(document)
            if let keep = ProcessInfo.processInfo.environment["BGEO_KEEP_REPORT"] {
                try? html.write(toFile: keep, atomically: true, encoding: .utf8)
            }
            return (document, html)
        } catch {
            fatalError("fixture: \(error)")
        }
    }()

    /// The path of an external judge binary, or nil when it is not installed.
    static func tool(_ name: String) -> String? {
        for folder in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        return nil
    }

    /// The GPX 1.1 schema: ../shared/schemas relative to the package root (CI), else /work/shared.
    static var gpxSchema: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        for candidate in [root.deletingLastPathComponent().appendingPathComponent("shared/schemas/gpx-1.1.xsd").path,
                          "/work/shared/schemas/gpx-1.1.xsd"] where FileManager.default.fileExists(atPath: candidate) {
            return candidate
        }
        return nil
    }

    /// Runs a command, returning exit status and combined output.
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
