import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoSQLite
@testable import BGeoForensics

/// Regression (stop 56): the traces indexed records by uuid in `String`-keyed tables, whose `==`
/// is canonical equivalence, so two queue rows whose uuids SQLite's UNIQUE keeps apart (`café`
/// precomposed and decomposed) were merged as one uuid's copies, and one fix was lost from the
/// replay (counted as a conflicting duplicate, with no warning). Records are told apart by bytes
/// in every trace: the in-memory and streamed replay traces, the report's recorded trace.
@Suite struct UUIDSpellingTests {
    static let precomposed = "caf\u{E9}-twin-uuid", decomposed = "cafe\u{301}-twin-uuid"

    /// The `stranded-refresh` sample with its first two location records given the two spellings.
    static func twinDump(_ dir: TestDirectory) throws -> String {
        let path = dir.file("twin-uuid.db")
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        try FileManager.default.copyItem(atPath: folder + "/stranded-refresh.db", toPath: path)
        let db = try Database(path: path, mode: .readWriteCreate)
        let rows = try db.prepare("SELECT id, json FROM location_events WHERE kind = 'location' ORDER BY id LIMIT 2")
        var found: [(Int64, String)] = []
        while try rows.step() { found.append((rows.int64(0), rows.text(1) ?? "")) }
        #expect(found.count == 2)
        for ((id, json), uuid) in zip(found, [precomposed, decomposed]) {
            var record = try JSONParser.parse(json).objectValue ?? JSONObject()
            record["uuid"] = .string(uuid)
            try db.prepare("UPDATE location_events SET uuid = ?, json = ? WHERE id = ?")
                .run([.text(uuid), .text(JSONValue.object(record).jsonText), .integer(id)])
        }
        return path
    }

    static func count(_ uuids: [String], _ spelling: String) -> Int {
        uuids.filter { $0.utf8.elementsEqual(spelling.utf8) }.count
    }

    @Test func twoSpellingsAreTwoRecordsInEveryTrace() throws {
        let dir = TestDirectory("uuid-spelling")
        let path = try Self.twinDump(dir)
        #expect(precomposedEqualsDecomposed())
        let trace = TraceBuilder.completeTrace(dump: try Dump(path: path))
        let uuids = trace.fixes.map(\.uuid)
        #expect(Self.count(uuids, Self.precomposed) == 1 && Self.count(uuids, Self.decomposed) == 1, "\(trace.stats)")
        #expect(trace.stats.conflictingDuplicates == 0, "\(trace.stats)")
        _ = try StreamedTraceTests.compare(path: path, windows: StreamedTraceTests.tiny, context: "twin uuids, tiny windows")
        _ = try StreamedTraceTests.compare(path: path, windows: .standard, context: "twin uuids, standard windows")
        let recorded = RecordedTraceReader.read(try Dump(path: path)).fixes.compactMap(\.fix.statedUUID)
        #expect(Self.count(recorded, Self.precomposed) == 1 && Self.count(recorded, Self.decomposed) == 1)
        try StreamedRecordedTraceTests.compare(path: path, windows: StreamedTraceTests.tiny, context: "twin uuids, recorded")
    }

    /// The report links a uuid a finding names to its queue row: each spelling to its own.
    @Test func eachSpellingLinksToItsOwnRow() throws {
        let dir = TestDirectory("uuid-spelling-rows")
        let dump = try Dump(path: try Self.twinDump(dir))
        let table = try #require(dump.layout.queueTable)
        let found = dump.rowIds(ofUUIDs: [ExactText(Self.precomposed), ExactText(Self.decomposed)], table: table)
        #expect(found.ids.count == 2)
        let rows = [Self.precomposed, Self.decomposed].compactMap { found.uuidRows[ExactText($0)] }
        #expect(rows.count == 2 && rows[0] != rows[1], "\(found.uuidRows)")
    }

    private func precomposedEqualsDecomposed() -> Bool { Self.precomposed == Self.decomposed }
}
