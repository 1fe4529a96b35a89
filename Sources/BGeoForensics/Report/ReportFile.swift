import BGeoReader
import Foundation

/// Writing a report to disk, and the helpers `report --all` uses.
public enum ReportFile {
    /// Builds the report for `dumpPath` and writes it to `output`, telling `progress` each stage.
    /// Returns the document and the bytes written.
    @discardableResult
    public static func write(dumpPath: String, to output: OutputFile, options: ReportOptions,
                             progress: StageProgress = .silent) throws -> (document: ReportDocument, bytes: Int) {
        defer { progress.finish() }
        progress.stage("copying \((dumpPath as NSString).lastPathComponent) privately")
        let dump = try Dump(path: dumpPath)
        let document = try ReportBuilder.build(dump: dump, options: options, progress: progress)
        // One stage: the page is written as it is drawn, so the file it goes to is named here.
        let target = output.isStandardOutput ? "standard output" : (output.path as NSString).lastPathComponent
        progress.stage("drawing the map, the charts and the tables into \(target)")
        // Written as it is drawn: the page (60 MB for a map of 400,000 gaps) is never whole in
        // memory. A trace that could not be read back fails the write, so no page is left.
        let bytes = try output.write { path in
            let file = try BufferedFileWriter(path: path)
            var page = PageText { file.write($0) }
            HTMLReportRenderer().render(document, into: &page)
            page.flush()
            if let stored = document.trace as? StoredReportTrace, let failure = stored.readFailure { throw failure }
            try file.finish()
            return file.bytesWritten
        }
        return (document, bytes)
    }

    /// `<dump name without extension>.html` in `folder` (default: the current folder), so a
    /// report never lands in the repository's committed `Reports/` unless asked to.
    public static func defaultOutput(for dumpPath: String, folder: String = ".") -> String {
        let name = ((dumpPath as NSString).lastPathComponent as NSString).deletingPathExtension
        return folder == "." ? name + ".html" : (folder as NSString).appendingPathComponent(name + ".html")
    }

    /// The dumps in a folder (`*.db`), sorted by name.
    public static func dumps(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".db") }
            .sorted()
            .map { (folder as NSString).appendingPathComponent($0) }
    }

    /// The generation time: `--generated-at`, else `BGEO_REPORT_GENERATED_AT` / `SOURCE_DATE_EPOCH`
    /// from the environment (for reproducible outputs), else now.
    public static func generationTime(option: Double?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Double {
        if let option { return option }
        if let text = environment["BGEO_REPORT_GENERATED_AT"], let t = Timestamp.parse(text) { return t }
        if let text = environment["SOURCE_DATE_EPOCH"], let t = Double(text) { return t }
        return (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000
    }
}
