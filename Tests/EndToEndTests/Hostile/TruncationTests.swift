import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 11 item 7, from the reproduced case: a truncated main file was refused whole (exit 2)
/// although the pages before the cut are intact. Now it is read up to its last whole page, with a
/// warning that says how much is missing and which tables may be incomplete; only a file without
/// a readable schema is exit 2. A damaged page in the middle is stepped over.
@Suite struct TruncationTests {
    static func dump(_ dir: TestDirectory) throws -> String {
        try Hostile.dump(at: dir.file("bgeo.db"), records: 300) { w in
            try w.begin()
            for i in 0..<600 {
                try w.insertLog(ts: Timestamp.format(1_784_880_000 + Double(i)), level: 3, event: "session.start", data: ["reason": "launch"])
            }
            try w.commit()
        }
    }

    @Test func aTruncatedDumpIsReadUpToTheCut() throws {
        let dir = TestDirectory("truncated")
        let dump = try TruncationTests.dump(dir)
        let whole = try Data(contentsOf: URL(fileURLWithPath: dump))
        let cut = whole.count - 3 * 4096 - 1234  // the last pages: the newest log rows
        try whole.prefix(cut).write(to: URL(fileURLWithPath: dump))
        let inspect = try Hostile.run(["inspect", dump])
        #expect(inspect.exitCode == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("truncated: its header says \(whole.count) bytes but the file holds \(cut); the last \(whole.count - cut) bytes"))
        #expect(inspect.stdout.contains("everything before the cut is read (tables that may be incomplete:"))
        let json = try Hostile.run(["logs", dump, "--json", "--limit", "0", "--oldest-first"])
        #expect(json.exitCode == 0)
        let rows = try JSONParser.parse(json.stdout).arrayValue ?? []
        #expect(rows.count > 300 && rows.count < 600, "the log rows before the cut are listed (\(rows.count))")
        #expect(rows.first?["id"]?.intValue == 1)
        #expect(rows.map { $0["id"]?.intValue ?? 0 } == Array(1...rows.count), "in order, none twice")
        for (command, extra) in Hostile.readerCommands(out: dir.path) {
            #expect(try Hostile.run([command, dump] + extra).exitCode == 0, "\(command)")
        }
    }

    @Test func aFileCutInsideItsFirstPageIsExitTwoWithOneSentence() throws {
        let dir = TestDirectory("truncated-first-page")
        let dump = try TruncationTests.dump(dir)
        let whole = try Data(contentsOf: URL(fileURLWithPath: dump))
        try whole.prefix(3000).write(to: URL(fileURLWithPath: dump))
        let result = try Hostile.run(["inspect", dump])
        #expect(result.exitCode == 2)
        #expect(result.stderr.hasSuffix("and its first page (the schema) is not whole).\n"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// SQLite's recovery reads leaf pages whose b-tree is gone ("lost and found"); so does this:
    /// with log_entries' root page zeroed, no row is reachable, yet every row is listed.
    @Test func aTableWhoseRootPageIsDamagedIsReadFromItsLeaves() throws {
        let dir = TestDirectory("zeroed-root")
        let dump = try TruncationTests.dump(dir)
        let db = try Database(path: dump, mode: .readOnly)
        let stmt = try db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'log_entries'")
        try #require(try stmt.step())
        let root = Int(stmt.int64(0))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dump)))
        for i in ((root - 1) * 4096)..<(root * 4096) { bytes[i] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: dump))
        let result = try Hostile.run(["logs", dump, "--json", "--limit", "0", "--oldest-first"])
        #expect(result.exitCode == 0)
        let ids = (try JSONParser.parse(result.stdout).arrayValue ?? []).compactMap { $0["id"]?.intValue }
        #expect(ids == Array(1...600), "every row, from the leaves (\(ids.count) read)")
        #expect(result.stderr.contains("600 of them from pages its b-tree no longer reaches"), "\(result.stderr)")
    }

    @Test func aDamagedPageInTheMiddleIsSteppedOver() throws {
        let dir = TestDirectory("zeroed-page")
        let dump = try TruncationTests.dump(dir)
        // Zero a page in the middle of log_entries' leaves (found with dbstat on a copy).
        let probe = dir.file("probe.db")
        try FileManager.default.copyItem(atPath: dump, toPath: probe)
        let db = try Database(path: probe, mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT pageno FROM dbstat WHERE name = 'log_entries' AND pagetype = 'leaf' ORDER BY pageno")
        var leaves: [Int64] = []
        while try stmt.step() { leaves.append(stmt.int64(0)) }
        try #require(leaves.count > 4)
        let page = Int(leaves[leaves.count / 2])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dump)))
        for i in ((page - 1) * 4096)..<(page * 4096) { bytes[i] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: dump))
        let result = try Hostile.run(["logs", dump, "--json", "--limit", "0", "--oldest-first"])
        #expect(result.exitCode == 0)
        let ids = (try JSONParser.parse(result.stdout).arrayValue ?? []).compactMap { $0["id"]?.intValue }
        #expect(ids.first == 1 && ids.last == 600, "rows on both sides of the damaged page (\(ids.count) read)")
        #expect(ids.count < 600 && ids.count > 500)
        #expect(result.stderr.contains("rows on damaged or missing pages are lost"), "\(result.stderr)")
    }
}
