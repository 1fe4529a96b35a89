import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The report's queue read gathers the timeline's facts of the queue (`QueueTimelineFacts`), so
/// its timeline scans only the log; when that read warned, or a row's timestamp did not read, the
/// timeline scans the queue itself after the log and its warnings are placed before the log's.
/// Either way: the timeline, the trace and the warnings (in their order) of a timeline that scans
/// the queue first.
@Suite struct ReportQueueFactsTests {
    static func read(_ path: String, shares: Bool) throws -> (scan: ReportScan, timeline: JSONValue, warnings: [String]) {
        let dump = try Dump(path: path)
        let scan = try ReportScan.read(dump, gapSeconds: 15 * 60, redactor: dump.makeRedactor(), sharesQueueFacts: shares)
        return (scan, scan.timeline.json(), dump.warnings.all.map(\.description))
    }

    /// A copy of `sample` with `sql` run on it (in `dir`, which removes it when it goes).
    static func altered(_ sample: String, _ sql: String, in dir: TestDirectory) throws -> String {
        let path = dir.file("bgeo.db")
        try FileManager.default.copyItem(atPath: SampleReports.folder + "/" + sample, toPath: path)
        let wal = SampleReports.folder + "/" + sample + "-wal"
        if FileManager.default.fileExists(atPath: wal) { try FileManager.default.copyItem(atPath: wal, toPath: path + "-wal") }
        if !sql.isEmpty {
            let db = try Database(path: path, mode: .readWriteCreate)
            try db.execute(sql)
        }
        return path
    }

    @Test(arguments: [
        ("clean", "healthy-day.db", "", true),
        ("stranded", "stranded-refresh.db", "", true),
        ("wal", "wal-mode.db", "", true),
        ("empty-timestamp", "healthy-day.db", "UPDATE location_events SET timestamp = '' WHERE id = (SELECT min(id) + 2 FROM location_events)", false),
        ("bad-timestamp", "healthy-day.db", "UPDATE location_events SET timestamp = 'soon' WHERE id = (SELECT max(id) FROM location_events)", false),
        // A schema whose timestamp may be NULL: the record's own timestamp places the fix without a
        // warning, but the timeline's scan of the column warns: the facts are not used.
        ("null-timestamp", "healthy-day.db", """
            CREATE TABLE nullable (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, timestamp TEXT,
              kind TEXT NOT NULL DEFAULT 'location', json TEXT NOT NULL, created_at TEXT NOT NULL);
            INSERT INTO nullable SELECT * FROM location_events;
            UPDATE nullable SET timestamp = NULL WHERE id = (SELECT min(id) + 1 FROM nullable);
            DROP TABLE location_events;
            ALTER TABLE nullable RENAME TO location_events;
            """, false),
        ("bad-json", "healthy-day.db", "UPDATE location_events SET json = '{\"uuid\":' WHERE id = (SELECT min(id) FROM location_events)", false),
        ("damaged", "damaged-rows.db", "", false),
    ])
    func sharedFactsGiveTheTimelinesOwn(name: String, sample: String, sql: String, shared: Bool) throws {
        let dir = TestDirectory("report-queue-facts-\(name)")
        let path = try Self.altered(sample, sql, in: dir)
        let reference = try Self.read(path, shares: false)
        let got = try Self.read(path, shares: true)
        #expect(!reference.scan.queueFactsShared)
        #expect(got.scan.queueFactsShared == shared, "\(name): facts \(shared ? "not " : "")shared")
        #expect(got.timeline == reference.timeline, "\(name): timeline")
        #expect(got.scan.trace.count == reference.scan.trace.count)
        #expect(got.warnings == reference.warnings, "\(name): warnings\n\(got.warnings)\nvs\n\(reference.warnings)")
        if !sql.isEmpty { #expect(got.warnings.contains { $0.contains("location_events") }, "\(name): the altered row was not warned of") }
        #expect(got.scan.timeline.pendingRecords > 0)
    }
}
