import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

@Suite struct DumpReaderTests {
    // MARK: Current schema

    @Test func readsCurrentSchemaCompletely() throws {
        let dir = TestDirectory("current")
        let path = dir.file("bgeo.db")
        try Fixtures.current(at: path)
        let before = try EvidenceCopy.sha256(ofFile: path)
        let dump = try Dump(path: path)
        #expect(dump.layout.format == .bgeo)
        #expect(dump.layout.schemaVersion == 3)
        #expect(!dump.layout.isLegacy)
        var records: [QueueRecord] = []
        dump.forEachRecord { records.append($0) }
        #expect(records.count == 6)
        #expect(records.map(\.rowId) == [1, 2, 3, 4, 5, 6])
        #expect(records.last?.kind == .geofence)
        #expect(records.last?.geofence == GeofenceInfo(identifier: "depot", action: "ENTER"))
        #expect(records.first?.accuracy == 8.4)
        #expect(records.first?.isMoving == true)
        var logs: [LogEntry] = []
        dump.forEachLogEntry { logs.append($0) }
        #expect(logs.count == 6)
        #expect(logs.filter { !$0.uploaded }.count == 5)
        let state = dump.engineState()
        #expect(state.httpFailures == 4)
        #expect(state.device?["model"] == "Pixel 8")
        #expect(dump.recordedConfig().source == .state)
        #expect(dump.warnings.all.isEmpty)
        #expect(dump.inputs.first?.sha256 == before)
        #expect(try EvidenceCopy.sha256(ofFile: path) == before)
    }

    @Test func queryFiltersByUUIDTimeAndLimit() throws {
        let dir = TestDirectory("query")
        let path = dir.file("bgeo.db")
        try Fixtures.current(at: path)
        let dump = try Dump(path: path)
        var uuids: [String] = []
        dump.forEachRecord(QueueQuery(uuid: Fixtures.uuid(3))) { uuids.append($0.uuid) }
        #expect(uuids == [Fixtures.uuid(3)])
        var count = 0
        dump.forEachRecord(QueueQuery(since: 1_784_880_030, limit: 2)) { _ in count += 1 }
        #expect(count == 2)
        var newest: [Int64] = []
        dump.forEachLogEntry(LogQuery(order: .newestFirst, limit: 2)) { newest.append($0.rowId) }
        #expect(newest == [6, 5])
        var errors = 0
        dump.forEachLogEntry(LogQuery(maxLevel: .warn)) { _ in errors += 1 }
        #expect(errors == 2)
        var http: [String] = []
        dump.forEachLogEntry(LogQuery(events: ["http.*"])) { http.append($0.event) }
        #expect(http == ["http.request", "http.response"])
    }

    // MARK: WAL

    @Test func seesRowsThatLiveOnlyInTheWAL() throws {
        let dir = TestDirectory("wal")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current, wal: true)
        for i in 1...3 { try w.insertRecord(Fixtures.record(i)) }
        try w.checkpoint()
        for i in 4...7 { try w.insertRecord(Fixtures.record(i)) }
        try w.close(keepWAL: true)
        let walBytes = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(walBytes > 0)
        let hashes = try [path, path + "-wal"].map { try EvidenceCopy.sha256(ofFile: $0) }
        let mainSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int

        let dump = try Dump(path: path)
        var ids: [Int64] = []
        dump.forEachRecord { ids.append($0.rowId) }
        #expect(ids == [1, 2, 3, 4, 5, 6, 7])
        #expect(dump.inputs.map { ($0.path as NSString).lastPathComponent }.prefix(2) == ["bgeo.db", "bgeo.db-wal"])
        #expect(try [path, path + "-wal"].map { try EvidenceCopy.sha256(ofFile: $0) } == hashes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == mainSize)
    }

    // MARK: Other layouts

    @Test func detectsLegacySchemaWithoutState() throws {
        let dir = TestDirectory("legacy")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .legacy(withState: false))
        try w.insertRecord(Fixtures.record(1))
        try w.insertRecord(Fixtures.record(2, geofence: true))
        try w.close()
        let dump = try Dump(path: path)
        #expect(dump.layout.format == .bgeo)
        #expect(dump.layout.isLegacy)
        #expect(dump.layout.recordColumn == "data")
        #expect(!dump.layout.hasState)
        var kinds: [RecordKind] = []
        dump.forEachRecord { kinds.append($0.kind) }
        #expect(kinds == [.location, .geofence])
        #expect(dump.recordedConfig().source == .defaults)
    }

    @Test func detectsLongPing() throws {
        let dir = TestDirectory("longping")
        let path = dir.file("queue.db")
        let w = try DumpWriter(path: path, layout: .longping)
        try w.insertRecord(Fixtures.record(1), attempts: 2)
        try w.close()
        let dump = try Dump(path: path)
        #expect(dump.layout.format == .longping)
        var attempts: [Int?] = []
        dump.forEachRecord { attempts.append($0.attempts) }
        #expect(attempts == [2])
    }

    // MARK: Damaged rows

    @Test func damagedRowsBecomeLocatedWarnings() throws {
        let dir = TestDirectory("damaged")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.insertRecord(Fixtures.record(1))                                                            // 1 ok
        try w.insertRecord(uuid: "bad-json", timestamp: "2026-07-24T09:00:00Z", json: "{\"uuid\": \"bad-json\", \"coords\": {")  // 2
        try w.insertRecord(uuid: "nan", timestamp: "2026-07-24T09:00:00Z",
                           json: #"{"uuid":"nan","coords":{"latitude":NaN,"longitude":1}}"#)                // 3
        try w.insertRecord(Fixtures.record(4, lat: 95))                                                   // 4 out of range
        try w.insertRecord(uuid: "nocoords", timestamp: "2026-07-24T09:00:00Z", json: #"{"uuid":"nocoords"}"#) // 5
        try w.insertRecord(uuid: "badts", timestamp: "24/07/2026", json: Fixtures.record(6).jsonText)     // 6
        try w.insertRecord(Fixtures.record(7, timestamp: "2026-07-24T11:00:00+02:00"))                    // 7 ok (offset)
        try w.insertLog(ts: "not a time", level: 3, event: "heartbeat", data: nil as String?)            // log 1
        try w.insertLog(ts: "2026-07-24T09:00:00Z", level: 3, event: "config", data: "{broken")          // log 2
        try w.setState("device", raw: "{oops")
        try w.close()
        let dump = try Dump(path: path)
        var ids: [Int64] = []
        dump.forEachRecord { ids.append($0.rowId) }
        var logIds: [Int64] = []
        dump.forEachLogEntry { logIds.append($0.rowId) }
        #expect(ids == [1, 7])
        #expect(logIds == [2])
        let located = dump.warnings.all.map { "\($0.table)#\($0.rowId.map(String.init) ?? "-")" }
        #expect(located == ["state#-", "location_events#2", "location_events#3", "location_events#4", "location_events#5",
                            "location_events#6", "log_entries#1", "log_entries#2"])
        #expect(dump.warnings.all.first { $0.rowId == 4 }?.message.contains("out of range") == true)
        #expect(dump.warnings.all.first { $0.rowId == 3 && $0.table == "location_events" }?.message.contains("does not parse") == true)
    }

    // MARK: Not a dump

    @Test func emptyFileIsRejectedPlainly() throws {
        let dir = TestDirectory("empty")
        let path = dir.file("bgeo.db")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        #expect(throws: DumpError.empty(path: path)) { try Dump(path: path) }
    }

    @Test func textAndZipAreNotDatabases() throws {
        let dir = TestDirectory("notdb")
        for (name, bytes) in [("notes.txt", Array("hello, this is a text file\n".utf8)), ("dump.zip", [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 200))] {
            let path = dir.file(name)
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            #expect(throws: DumpError.notADatabase(path: path)) { try Dump(path: path) }
        }
    }

    /// A private folder that cannot be made (its parent is a regular file: even root cannot make a
    /// folder there) is the machine's failure, naming the folder and the reason, not the dump's:
    /// `environment`, never `unreadable` (which `fleet` took for "not a dump").
    @Test func aPrivateCopyThatCannotBeMadeIsTheMachinesFailure() throws {
        let dir = TestDirectory("no-private-folder")
        let file = dir.file("a-file")
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        for parent in [file, file + "/sub"] {
            let error = #expect(throws: DumpError.self) { try Dump(path: ReportFixture.dumpPath, privateParent: parent) }
            #expect(error?.description == "\(ReportFixture.dumpPath) was not read: its private copy cannot be made in \(parent) "
                + "(Not a directory); set TMPDIR to a writable folder with room.")
        }
    }

    /// A file cut in half is read up to the cut (it was refused whole), with one warning that
    /// says how much is missing and which table may be incomplete; only a cut inside the first
    /// page (no schema left) is refused, with one sentence.
    @Test func truncatedDatabaseIsReadUpToTheCut() throws {
        let dir = TestDirectory("trunc")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        for i in 1...400 { try w.insertRecord(Fixtures.record(i)) }
        try w.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let dump = try Dump(path: path)
        var ids: [Int64] = []
        dump.forEachRecord { ids.append($0.rowId) }
        #expect(ids.count > 100 && ids.count < 400, "read \(ids.count) of 400")
        #expect(ids == Array(1...Int64(ids.count)), "the rows before the cut are read in order")
        let missing = data.count - data.count / 2
        let truncation = dump.warnings.all.first { $0.table == path }
        #expect(truncation?.message.contains("truncated") == true)
        #expect(truncation?.message.contains("\(missing) bytes") == true, "\(String(describing: truncation))")
        #expect(truncation?.message.contains("tables that may be incomplete: location_events") == true)

        try data.prefix(2000).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: DumpError.self) { try Dump(path: path) }
        #expect(error?.description.contains("truncated") == true)
        #expect(error?.description.contains("\n") == false)
        if case .damaged? = error {} else { Issue.record("expected .damaged, got \(String(describing: error))") }
    }

    @Test func unknownSchemaIsNamed() throws {
        let dir = TestDirectory("unknown")
        let path = dir.file("other.db")
        let db = try Database(path: path, mode: .readWriteCreate)
        try db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        #expect(throws: DumpError.unknownSchema(path: path, tables: ["customers"])) { try Dump(path: path) }
    }

    /// `gpx` and `export` open the dump without hashing it (they report no hash): the copy is the
    /// same, the sizes are known, and the inputs say plainly that no hash was computed.
    @Test func aDumpOpenedWithoutHashingSaysSo() throws {
        let dir = TestDirectory("no-hash")
        let path = dir.file("bgeo.db")
        try Fixtures.current(at: path)
        let hashed = try Dump(path: path)
        let unhashed = try Dump(path: path, hashing: .none)
        #expect(hashed.inputs.map(\.bytes) == unhashed.inputs.map(\.bytes))
        #expect(hashed.inputs.first?.sha256 == (try EvidenceCopy.sha256(ofFile: path)))
        #expect(unhashed.inputs.allSatisfy { $0.sha256.hasPrefix("not computed") })
        var a: [Int64] = [], b: [Int64] = []
        hashed.forEachRecord { a.append($0.rowId) }
        unhashed.forEachRecord { b.append($0.rowId) }
        #expect(a == b && a.count == 6)
    }

    /// `timeline` and `replay` hash at a lower priority (`InputHashing.yieldingToReads`): the hash
    /// is the same, and the caller's thread keeps its own priority (Linux keeps nice per thread).
    @Test func aYieldingHashIsTheSameHash() throws {
        let dir = TestDirectory("yielding-hash")
        let path = dir.file("bgeo.db")
        try Fixtures.current(at: path)
        let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let yielding = try Dump(path: path, hashing: .yieldingToReads)
        #expect(yielding.inputs.first?.sha256 == (try EvidenceCopy.sha256(ofFile: path)))
        #expect(yielding.inputs.map(\.sha256) == (try Dump(path: path)).inputs.map(\.sha256))
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == before)
    }
}
