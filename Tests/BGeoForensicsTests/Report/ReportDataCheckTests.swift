import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The report's log read leaves the JSON check of its `location` rows to the field scanner's
/// parse (`LineSpool.addChecking`, `forEachLogEntry(takerChecksData:)`) instead of checking
/// every row's data twice. On random and hostile logs it must warn exactly as the read that
/// checks every row first: the same located warnings in the same order, the same lines, the
/// same timeline.
@Suite struct ReportDataCheckTests {
    /// The timeline and the fix lines read as `ReportScan` reads them (`parseChecks`: location rows
    /// from their cells, their JSON checked by the parse), or with every row built into an entry
    /// whose data the read checked first (the reference).
    static func read(_ dump: Dump, parseChecks: Bool) -> (timeline: JSONValue, lines: TraceBuilder.ParsedLines) {
        var lines = TraceBuilder.LineSpool(folder: dump.workFiles, windows: .standard)
        let builder = TimelineBuilder(dump: dump, options: TimelineOptions(gapLimit: .max), redactor: dump.makeRedactor())
        if parseChecks {
            builder.logObserver = LogObserver(events: nil, cells: { row, dataChecked in
                if dataChecked {
                    lines.add(row, warnings: dump.warnings)
                    return true
                }
                return lines.addChecking(row, warnings: dump.warnings)
            }, entries: { entry in lines.add(entry, warnings: dump.warnings) })
        } else {
            builder.logObserver = LogObserver { entry in lines.add(entry, warnings: dump.warnings) }
        }
        let timeline = builder.build().json()
        return (timeline, lines.parsed)
    }

    static func counts(_ p: TraceBuilder.ParsedLines) -> [Int] { [p.locations, p.rejects, p.adjusts, p.skipped] }

    @Test(arguments: [21 as UInt64, 22, 23])
    func theParseChecksLocationDataAsTheReadWould(seed: UInt64) throws {
        let dir = TestDirectory("report-data-check-\(seed)")
        let path = dir.file("bgeo.db")
        try FixLineRowPathTests.randomLog(path, seed: seed)
        let reference = try Dump(path: path)
        let expected = Self.read(reference, parseChecks: false)
        let dump = try Dump(path: path)
        let got = Self.read(dump, parseChecks: true)
        #expect(got.timeline == expected.timeline)
        #expect(Self.counts(got.lines) == Self.counts(expected.lines))
        let a = dump.warnings.all.map(\.description), b = reference.warnings.all.map(\.description)
        #expect(a.count == b.count)
        let firstDifference = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "warning \(firstDifference?.offset ?? -1): \(firstDifference?.element.0 ?? "") vs \(firstDifference?.element.1 ?? "")")
        // The delegated check is exercised: location rows that are not valid JSON, and ones that
        // are valid JSON but no object (no JSON warning, only the line's own).
        // (Rows whose ts does not parse are skipped before their data is looked at.)
        let timed = "event = 'location' AND ts GLOB '[0-9]*Z'"
        let invalidLocations = try Self.rowIds(path, timed + " AND data IS NOT NULL AND NOT json_valid(data)")
        let arrays = try Self.rowIds(path, timed + " AND data = '[1,2]'")
        #expect(!invalidLocations.isEmpty && !arrays.isEmpty)
        for id in invalidLocations.prefix(20) {
            #expect(a.contains { $0.contains("row \(id):") && $0.contains("data is not valid JSON") }, "row \(id)")
        }
        for id in arrays.prefix(20) {
            #expect(!a.contains { $0.contains("row \(id):") && $0.contains("data is not valid JSON") }, "row \(id)")
            #expect(a.contains { $0.contains("row \(id):") && $0.contains("data is not a JSON object") }, "row \(id)")
        }
    }

    /// A location row's JSON warning comes before the line's own, as when the read checks first.
    @Test func theJSONWarningComesFirst() throws {
        let dir = TestDirectory("report-data-check-order")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        try w.insertLog(ts: "2026-07-24T07:00:00.000Z", level: 4, event: "location", message: nil, data: "{\"latitude\":52.1,")
        try w.insertLog(ts: "2026-07-24T07:00:01.000Z", level: 4, event: "location", message: nil, data: "\"text\"")
        try w.insertLog(ts: "2026-07-24T07:00:02.000Z", level: 4, event: "heartbeat", message: nil, data: "{oops}")
        try w.commit()
        try w.close()
        let dump = try Dump(path: path)
        _ = Self.read(dump, parseChecks: true)
        #expect(dump.warnings.all.map(\.description) == [
            "log_entries row 1: data is not valid JSON (kept as text)",
            "log_entries row 1: location data is not a JSON object; not replayed",
            "log_entries row 2: location data is not a JSON object; not replayed",
            "log_entries row 3: data is not valid JSON (kept as text)",
        ])
    }

    static func rowIds(_ path: String, _ condition: String) throws -> [Int64] {
        let db = try Database(path: path, mode: .readOnly)
        let stmt = try db.prepare("SELECT id FROM log_entries WHERE \(condition) ORDER BY id")
        var ids: [Int64] = []
        while try stmt.step() { ids.append(stmt.int64(0)) }
        return ids
    }
}
