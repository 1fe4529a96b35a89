import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Issue 11 item 6, from the reproduced case: a WAL that belongs to another database beside the
/// dump was applied silently — the output showed the other database's rows, "Warnings: none".
/// Now it is ignored with a warning naming the file, and the main file is read alone; the
/// dump's own WAL is still read, without a word.
@Suite struct ForeignWALTests {
    /// A WAL dump: `checkpointed` rows in the main file, `walOnly` more only in its WAL.
    static func walDump(_ path: String, prefix: String, checkpointed: Int, walOnly: Int, time: Double) throws {
        let w = try DumpWriter(path: path, layout: .current, wal: true)
        try w.begin()
        for i in 0..<checkpointed { try w.insertRecord(Hostile.record(i, uuid: "\(prefix)-\(i)", time: time)) }
        for i in 0..<checkpointed { try w.insertLog(ts: Timestamp.format(time + Double(i)), level: 3, event: "session.start", data: ["reason": .string(prefix)]) }
        try w.checkpoint()
        try w.begin()
        for i in checkpointed..<(checkpointed + walOnly) { try w.insertRecord(Hostile.record(i, uuid: "\(prefix)-\(i)", time: time)) }
        for i in 0..<walOnly { try w.insertLog(ts: Timestamp.format(time + 500 + Double(i)), level: 3, event: "motion.stationary", data: nil as JSONValue?) }
        try w.close(keepWAL: true)
        _ = unlink(path + "-shm")
    }

    static func inspect(_ dump: String) throws -> (json: JSONValue, warnings: [JSONValue]) {
        let result = try Hostile.run(["inspect", dump, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        return (json, json["warnings"]?.arrayValue ?? [])
    }

    @Test func theDumpsOwnWALIsReadWithoutAWord() throws {
        let dir = TestDirectory("own-wal")
        let a = dir.file("a.db")
        try ForeignWALTests.walDump(a, prefix: "a", checkpointed: 20, walOnly: 15, time: 1_784_880_000)
        let (json, warnings) = try ForeignWALTests.inspect(a)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(json["queue"]?["count"]?.intValue == 35, "rows only in the WAL are read")
    }

    @Test func aWALOfAnotherDumpIsIgnoredWithAWarningNamingIt() throws {
        let dir = TestDirectory("foreign-wal")
        let a = dir.file("a.db"), b = dir.file("b.db")
        try ForeignWALTests.walDump(a, prefix: "a", checkpointed: 20, walOnly: 15, time: 1_784_880_000)
        try ForeignWALTests.walDump(b, prefix: "b", checkpointed: 30, walOnly: 40, time: 1_784_990_000)
        let alone = dir.file("a-alone.db")
        try FileManager.default.copyItem(atPath: a, toPath: alone)
        let expected = try ForeignWALTests.inspect(alone).json
        try FileManager.default.removeItem(atPath: a + "-wal")
        try FileManager.default.copyItem(atPath: b + "-wal", toPath: a + "-wal")

        let (json, warnings) = try ForeignWALTests.inspect(a)
        let warning = warnings.first { $0["table"]?.stringValue == a + "-wal" }
        #expect(warning?["message"]?.stringValue?.hasPrefix("ignored: ") == true, "\(warnings)")
        #expect(warning?["message"]?.stringValue?.hasSuffix("the main file a.db was read alone") == true)
        #expect(json["queue"]?["count"] == expected["queue"]?["count"], "the main file alone: \(String(describing: expected["queue"]))")
        #expect(json["queue"]?["head"]?.stringValue == "a-0")
        #expect(json["log"]?["count"] == expected["log"]?["count"])
        let locations = try Hostile.run(["locations", a])
        #expect(!locations.stdout.contains("b-"), "none of the other database's rows")
        #expect(locations.stderr.contains("\(a)-wal: ignored"), "\(locations.stderr)")
    }

    @Test func aWALWithABrokenHeaderOrAnotherPageSizeIsIgnored() throws {
        let dir = TestDirectory("bad-wal")
        let a = dir.file("a.db")
        try ForeignWALTests.walDump(a, prefix: "a", checkpointed: 5, walOnly: 5, time: 1_784_880_000)
        var wal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: a + "-wal")))
        wal[20] ^= 0xFF  // salt-2: the header checksum no longer matches
        try Data(wal).write(to: URL(fileURLWithPath: a + "-wal"))
        let broken = try ForeignWALTests.inspect(a).warnings
        #expect(broken.contains { $0["message"]?.stringValue?.contains("its header checksum is wrong") == true }, "\(broken)")

        let other = dir.file("small-pages.db")
        let db = try Database(path: other, mode: .readWriteCreate)
        try db.execute("PRAGMA page_size = 1024; PRAGMA journal_mode = WAL; CREATE TABLE location_events (id INTEGER PRIMARY KEY, uuid TEXT, json TEXT)")
        try db.setNoCheckpointOnClose()
        try db.execute("INSERT INTO location_events VALUES (1, 'x', '{}')")
        try FileManager.default.removeItem(atPath: a + "-wal")
        try FileManager.default.copyItem(atPath: other + "-wal", toPath: a + "-wal")
        let pages = try ForeignWALTests.inspect(a).warnings
        #expect(pages.contains { $0["message"]?.stringValue?.contains("its page size (1024) is not the main file's (4096)") == true }, "\(pages)")
    }
}
