import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

@Suite struct TraceDuplicateTests {
    @Test func conflictingDuplicateAcrossQueueAndLogIsALocatedWarning() throws {
        let dir = TestDirectory("dup")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.insertRecord(Fixtures.record(1))   // queue row 1, uuid(1)
        try w.insertRecord(Fixtures.record(2))   // queue row 2, uuid(2)
        let same = Fixtures.record(2)
        // Log row 1: same uuid and timestamp as queue row 2: a normal overlap, no warning.
        try w.insertLog(ts: "2026-07-24T09:00:00Z", level: 4, event: "location",
                        data: ["uuid": .string(Fixtures.uuid(2)), "timestamp": same["timestamp"]!, "latitude": 52.2, "longitude": 21.0, "accuracy": 5])
        // Log row 2: uuid(1) with another timestamp: conflicting evidence.
        try w.insertLog(ts: "2026-07-24T09:00:01Z", level: 4, event: "location",
                        data: ["uuid": .string(Fixtures.uuid(1)), "timestamp": "2026-07-24T10:00:00.000Z", "latitude": 52.2, "longitude": 21.0, "accuracy": 5])
        try w.close()
        let dump = try Dump(path: path)
        let trace = TraceBuilder.completeTrace(dump: dump)
        #expect(trace.fixes.count == 2)
        #expect(trace.stats.duplicates == 2)
        #expect(trace.stats.conflictingDuplicates == 1)
        let warnings = dump.warnings.all.filter { $0.table == "log_entries" }
        #expect(warnings.map(\.rowId) == [2])
        #expect(warnings.first?.message.contains("location_events row 1") == true)
    }
}
