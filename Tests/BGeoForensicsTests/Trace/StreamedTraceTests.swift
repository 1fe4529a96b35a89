import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The streamed trace (bounded windows, spills on disk) equals the in-memory one — fixes, order,
/// counts, warnings — on dumps built to defeat every window.
@Suite struct StreamedTraceTests {
    /// Windows far smaller than the disorder in `RandomTraceDump`: every record that is out of order
    /// spills, groups close early and split, the uuid filter gives false alarms.
    static let tiny = TraceWindows(reorder: 3, groupSeconds: 0.5, openGroups: 4, filterBits: 1 << 10, heldFixes: 3,
                                   apartUUIDs: 2)
    static let small = TraceWindows(reorder: 64, groupSeconds: 30, openGroups: 64, filterBits: 1 << 14, heldFixes: 64)

    static func expectSame(_ a: Fix, _ b: Fix, _ context: String) {
        #expect(a.index == b.index, "\(context): index")
        #expect(a.time == b.time && a.latitude == b.latitude && a.longitude == b.longitude, "\(context): time/position \(a.label) vs \(b.label)")
        #expect(a.accuracy == b.accuracy && a.speed == b.speed && a.recordedOdometer == b.recordedOdometer, "\(context): measurements")
        #expect(a.source == b.source && a.rowId == b.rowId && a.logId == b.logId, "\(context): origin \(a.label) \(a.source) \(String(describing: a.rowId)) \(String(describing: a.logId)) vs \(b.label) \(b.source) \(String(describing: b.rowId)) \(String(describing: b.logId))")
        #expect(a.uuid == b.uuid && a.timestampText == b.timestampText && a.recordedReason == b.recordedReason, "\(context): text")
        #expect(a.isRaw == b.isRaw && a.isMoving == b.isMoving, "\(context): flags")
        #expect(a.headingOrNaN.bitPattern == b.headingOrNaN.bitPattern && a.altitudeOrNaN.bitPattern == b.altitudeOrNaN.bitPattern,
                "\(context): heading/altitude")
    }

    static func compare(path: String, windows: TraceWindows, context: String) throws -> CompleteTrace {
        let memoryDump = try Dump(path: path)
        let memory = TraceBuilder.completeTrace(dump: memoryDump)
        let streamDump = try Dump(path: path)
        let streamed = try TraceBuilder.storedTrace(dump: streamDump, windows: windows)
        #expect(streamed.count == memory.fixes.count, "\(context): fix count")
        var i = 0
        try streamed.forEachFix { fix in
            if i < memory.fixes.count { expectSame(fix, memory.fixes[i], "\(context) fix \(i)") }
            i += 1
        }
        #expect(streamed.stats == memory.stats, "\(context): stats \(streamed.stats) vs \(memory.stats)")
        #expect(streamDump.warnings.all == memoryDump.warnings.all, "\(context): warnings")
        let geofences = try streamed.geofences()
        let expected = memory.geofences.map(ReportGeofence.init(record:)).sorted { $0.time < $1.time }
        #expect(geofences.map(\.uuid) == expected.map(\.uuid), "\(context): geofences")
        // The queue's facts as the report header computes them from the in-memory trace.
        var facts = QueueFacts()
        for fix in memory.fixes where fix.rowId != nil { facts.add(time: fix.time, rowId: fix.rowId!, uuid: fix.uuid) }
        for g in memory.geofences { facts.add(time: g.time, rowId: g.rowId, uuid: g.uuid, geofence: true) }
        #expect(streamed.queue == facts, "\(context): queue facts")
        return streamed
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomTraceMatchesTheInMemoryTrace(seed: UInt64) throws {
        let dir = TestDirectory("streamed-\(seed)")
        let path = dir.file("random.db")
        try RandomTraceDump.write(to: path, seed: seed)
        let tiny = try StreamedTraceTests.compare(path: path, windows: StreamedTraceTests.tiny, context: "seed \(seed) tiny windows")
        // The dump defeats every window: copies hours apart were found and merged exactly, records
        // out of order were sorted on disk, and every rule had something to do.
        #expect(tiny.assemblyRuns > 1, "seed \(seed): no uuid had copies far apart")
        #expect(tiny.spilledRecords > 50, "seed \(seed): only \(tiny.spilledRecords) records spilled")
        let s = tiny.stats
        #expect(s.adjustsMerged > 0 && s.conflictingDuplicates > 0 && s.duplicates > s.conflictingDuplicates && s.logRejects > 0,
                "seed \(seed): \(s)")
        var ties = 0, previous: Double?
        try tiny.forEachFix { fix in
            if fix.time == previous { ties += 1 }
            previous = fix.time
        }
        #expect(ties > 20, "seed \(seed): only \(ties) fixes share a time with the one before")
        // More fixes waited than the window holds: milliseconds were settled on disk.
        #expect(tiny.spilledMilliseconds > 0, "seed \(seed): \(tiny.spilledMilliseconds) milliseconds settled on disk")
        // Records spilled: the live pass (made while reading) could not be exact and was set aside.
        #expect(!tiny.assembledLive, "seed \(seed): a live pass was kept although records spilled")
        _ = try StreamedTraceTests.compare(path: path, windows: StreamedTraceTests.small, context: "seed \(seed) small windows")
        _ = try StreamedTraceTests.compare(path: path, windows: .standard, context: "seed \(seed) standard windows")
    }

    /// A dump in order (every sample with standard windows): the first pass is the live one, made
    /// while the queue and the log were read, and it equals the in-memory trace.
    @Test func aDumpInOrderIsAssembledWhileItIsRead() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        let samples = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".db") }.sorted()
        var live = 0
        for name in samples {
            let trace = try StreamedTraceTests.compare(path: folder + "/" + name, windows: .standard, context: name + " standard")
            if trace.spilledRecords == 0 {
                #expect(trace.assembledLive, "\(name): nothing spilled, yet the live pass was not used")
                live += 1
            }
        }
        #expect(live >= 5, "only \(live) samples were assembled live")
    }

    @Test func everySampleMatchesTheInMemoryTrace() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        let samples = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".db") }.sorted()
        #expect(samples.count >= 9)
        for name in samples {
            _ = try StreamedTraceTests.compare(path: folder + "/" + name, windows: StreamedTraceTests.tiny, context: name)
        }
    }
}

/// The streamed recorded trace (exports' `recorded` and `raw` modes) equals `RecordedTraceReader.read`.
@Suite struct StreamedRecordedTraceTests {
    static func compare(path: String, windows: TraceWindows, context: String) throws {
        let memoryDump = try Dump(path: path)
        let memory = RecordedTraceReader.read(memoryDump)
        let streamDump = try Dump(path: path)
        let streamed = try RecordedTraceReader.stored(streamDump, windows: windows)
        #expect(streamed.count == memory.fixes.count, "\(context): fix count")
        var i = 0
        try streamed.forEachFix { fix in
            defer { i += 1 }
            guard i < memory.fixes.count else { return }
            let m = memory.fixes[i]
            #expect(fix.fix.time == m.fix.time && fix.fix.statedUUID == m.fix.statedUUID && fix.fix.evidence == m.fix.evidence
                    && fix.fix.source == m.fix.source && fix.decision == m.decision && fix.reason == m.reason,
                    "\(context) fix \(i): \(fix.fix.evidence.label) vs \(m.fix.evidence.label)")
            #expect(fix.fix.latitude == m.fix.latitude && fix.fix.longitude == m.fix.longitude, "\(context) fix \(i): position")
            #expect(fix.fix.accuracy == m.fix.accuracy && fix.fix.speed == m.fix.speed && fix.fix.heading == m.fix.heading
                    && fix.fix.altitude == m.fix.altitude && fix.fix.recordedOdometer == m.fix.recordedOdometer
                    && fix.fix.isMoving == m.fix.isMoving && fix.fix.isRaw == m.fix.isRaw && fix.fix.loggedReason == m.fix.loggedReason
                    && fix.fix.recordedReason == m.fix.recordedReason, "\(context) fix \(i): fields")
        }
        #expect(streamDump.warnings.all == memoryDump.warnings.all, "\(context): warnings")
        #expect(try streamed.geofences().map(\.uuid) == memory.geofences.map(\.uuid), "\(context): geofences")
        #expect(streamed.queueHeadUUID == memory.queueHeadUUID, "\(context): queue head")
    }

    /// The streamed reader validates a line's data in its own scan (no second pass): lines that
    /// are not JSON, JSON that is not an object, NULL, and objects without a position get the
    /// same warnings, in the same order, as the in-memory reader, whose scan validates first.
    @Test func brokenLineDataWarnsAsTheInMemoryReader() throws {
        let dir = TestDirectory("recorded-broken-lines")
        let path = dir.file("broken.db")
        try RandomTraceDump.write(to: path, seed: 21)
        let db = try Database(path: path, mode: .readWriteCreate)
        for data in ["'{\"latitude\":'", "'[1,2]'", "NULL", "'not json'", "'{\"uuid\":\"x\"}'", "'\"text\"'", "''",
                     "'{\"latitude\":1,\"longitude\":2,\"latitude\":NaN}'", "'{\"latitude\":52.1,\"longitude\":21.0}'"] {
            for event in ["location", "filter.reject"] {
                try db.execute("INSERT INTO log_entries (ts, level, src, event, message, data) VALUES ('2026-07-24T10:00:00.000Z', 2, 'test', '\(event)', NULL, \(data))")
            }
        }
        for windows in [StreamedTraceTests.tiny, TraceWindows.standard] {
            try StreamedRecordedTraceTests.compare(path: path, windows: windows, context: "broken lines \(windows.reorder)")
        }
        let dump = try Dump(path: path)
        _ = try RecordedTraceReader.stored(dump)
        #expect(dump.warnings.all.filter { $0.message == "data is not valid JSON (kept as text)" }.count == 8)
    }

    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func randomTraceMatchesTheInMemoryReader(seed: UInt64) throws {
        let dir = TestDirectory("recorded-\(seed)")
        let path = dir.file("random.db")
        try RandomTraceDump.write(to: path, seed: seed)
        for windows in [StreamedTraceTests.tiny, StreamedTraceTests.small, TraceWindows.standard] {
            try StreamedRecordedTraceTests.compare(path: path, windows: windows, context: "seed \(seed) \(windows.reorder)")
        }
    }
}
