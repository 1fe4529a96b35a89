import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A clock stuck on one value puts every fix of a dump in one millisecond. Such a millisecond is
/// settled on disk once it holds more fixes than the window (`TraceWindows.heldFixes`), and the
/// queue's copies and the log's meet in one group each, so the trace is still made in one pass,
/// in bounded memory, and equals the in-memory trace (found in stop 48: 100,000 tied fixes took
/// 4.46 s and 366 MB, growing with every fix, and two assembly runs).
@Suite struct StuckClockTests {
    /// Windows a stuck clock overflows: 64 open groups, 100 fixes held.
    static let narrow = TraceWindows(reorder: 64, groupSeconds: 30, openGroups: 64, filterBits: 1 << 14, heldFixes: 100)

    /// Every fix written as the SDK writes it — its queue row, then its location line — at one time.
    static func writeStuckClock(to path: String, fixes: Int) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        let db = try Database(path: path, mode: .readWriteCreate)
        try db.execute("""
            CREATE TABLE location_events (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, timestamp TEXT NOT NULL,
              kind TEXT NOT NULL DEFAULT 'location', json TEXT NOT NULL, created_at TEXT NOT NULL);
            CREATE TABLE log_entries (id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, level INTEGER NOT NULL,
              src TEXT NOT NULL, event TEXT NOT NULL, message TEXT, data TEXT, uploaded INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT);
            INSERT INTO state(key, value) VALUES ('schema_version', '3');
            BEGIN;
            """)
        let ts = "2026-03-01T10:00:00.000Z"
        let record = try db.prepare("INSERT INTO location_events(uuid, timestamp, kind, json, created_at) VALUES (?, ?, 'location', ?, ?)")
        let line = try db.prepare("INSERT INTO log_entries(ts, level, src, event, message, data) VALUES (?, 4, 'native', 'location', NULL, ?)")
        for i in 0..<fixes {
            let uuid = String(format: "00000000-0000-4000-8000-%012x", i)
            let lat = 52.0 + Double(i) * 1e-5
            try record.run([.text(uuid), .text(ts), .text("{\"uuid\":\"\(uuid)\",\"timestamp\":\"\(ts)\",\"coords\":{\"latitude\":\(lat),\"longitude\":21,\"accuracy\":8}}"), .text(ts)])
            try line.run([.text(ts), .text("{\"uuid\":\"\(uuid)\",\"timestamp\":\"\(ts)\",\"latitude\":\(lat),\"longitude\":21,\"accuracy\":8,\"raw_latitude\":\(lat + 1e-4),\"raw_longitude\":21.0001}")])
        }
        try db.execute("COMMIT")
    }

    @Test func aStuckClockIsAssembledInOnePassAndSettledOnDisk() throws {
        let dir = TestDirectory("stuck-clock")
        let path = dir.file("stuck.db")
        try Self.writeStuckClock(to: path, fixes: 3_000)
        let trace = try StreamedTraceTests.compare(path: path, windows: Self.narrow, context: "stuck clock")
        #expect(trace.count == 3_000)
        // The lines joined their open groups: no uuid split between two groups, one pass.
        #expect(trace.assemblyRuns == 1, "\(trace.assemblyRuns) assembly runs")
        #expect(trace.spilledMilliseconds == 1, "\(trace.spilledMilliseconds) milliseconds on disk")
        try StreamedRecordedTraceTests.compare(path: path, windows: Self.narrow, context: "stuck clock, recorded")
    }

    /// The random dump with its clock stuck: queue rows, log-only fixes, rejections and adjust
    /// lines at one time (a tie group of mixed origins, where `tieOrder` is not transitive), some
    /// lines far apart, repeated rows — streamed through narrow windows, equal to the in-memory trace.
    @Test(arguments: [21, 22] as [UInt64])
    func aStuckRandomDumpMatchesTheInMemoryTrace(seed: UInt64) throws {
        let dir = TestDirectory("stuck-random-\(seed)")
        let path = dir.file("random.db")
        try RandomTraceDump.write(to: path, seed: seed, shape: .init(fixes: 2_500, geofences: 12, stuckClock: true))
        let trace = try StreamedTraceTests.compare(path: path, windows: Self.narrow, context: "seed \(seed) stuck")
        #expect(trace.spilledMilliseconds >= 1)
        var tied = 0
        try trace.forEachFix { if $0.time == 1_784_880_000 { tied += 1 } }
        #expect(tied > 1_500, "only \(tied) fixes at the stuck time")
        #expect(trace.stats.adjustsMerged > 0)
        _ = try StreamedTraceTests.compare(path: path, windows: .standard, context: "seed \(seed) stuck, standard windows")
        try StreamedRecordedTraceTests.compare(path: path, windows: Self.narrow, context: "seed \(seed) stuck, recorded")
    }
}
