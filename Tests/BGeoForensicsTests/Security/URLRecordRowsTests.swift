import Foundation
import Testing
import BGeoSQLite
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The learning reads the SDK's records of its calls (`http.request`, `auth.refresh`) only where
/// their data holds an `@` (`Dump.urlSecretEvents`): SQLite's test in the scan
/// (`LogQuery.eventsHoldingAt`, `bgeo_holds_at(data)`) and Swift's on a row already read
/// (`Dump.statesSecrets`, used by `inspect`'s scan and the warnings' placing) must name the same
/// rows, or the commands would learn different secrets.
@Suite struct URLRecordRowsTests {
    /// Rows of every kind the tests tell apart, with what the learning must read of them.
    static let rows: [(event: String, data: CellValue, read: Bool)] = [
        ("config", .text(#"{"url":"https://h.example"}"#), true),
        ("auth.refresh.result", .text(#"{"success":false,"status":401}"#), true),
        ("http.request", .text(#"{"url":"https://u:pw-in-request@h.example/x","uuids":["a"]}"#), true),
        ("http.request", .text(#"{"url":"https://h.example/x","uuids":["a"]}"#), false),
        ("auth.refresh", .text(#"{"url":"https://r:pw-in-refresh@auth.example/token"}"#), true),
        ("auth.refresh", .text(#"{"url":"https://auth.example/token"}"#), false),
        // An `@` after a NUL byte (SQLite's LIKE would stop at the NUL) and in a BLOB (a LIKE
        // built as Debian's is false on every BLOB).
        ("http.request", .text("{\"url\":\"x\u{0}@\"}"), true),
        ("http.request", .blob(Array(#"{"url":"https://u:in-a-blob@h"}"#.utf8)), true),
        ("http.request", .null, false),
        ("http.request", .text(#"{"url":"https://u:x@h"#), true),
        // JSON-escaped slashes (read from the bytes) and a password with an escape (parsed).
        ("http.request", .text(#"{"url":"https:\/\/u:slashed-pw-1@h.example\/x"}"#), true),
        ("auth.refresh", .text(#"{"url":"https://u:esc\u0041ped-pw@h.example/x"}"#), true),
        ("http.response", .text(#"{"status":200,"response":"https://u:pw@h"}"#), false),
        ("app", .text(#"{"mail":"a@b.example"}"#), false),
    ]

    static func dump(_ path: String) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        let insert = try w.database.prepare("INSERT INTO log_entries(ts, level, src, event, message, data, uploaded) VALUES (?, 3, 'native', ?, NULL, ?, 0)")
        for (i, row) in rows.enumerated() {
            try insert.run(cells: [.text(Timestamp.format(1_784_880_000 + Double(i))), .text(row.event), row.data])
        }
        try w.commit()
        try w.close()
    }

    @Test func theScanAndTheRowTestReadTheSameRows() throws {
        let dir = TestDirectory("url-record-rows")
        let path = dir.file("bgeo.db")
        try Self.dump(path)
        let dump = try Dump(path: path)
        var scanned: [Int64] = []
        dump.forEachLogEntry(Dump.secretRowsQuery) { scanned.append($0.rowId) }
        var tested: [Int64] = []
        dump.forEachLogRow(LogQuery()) { row in
            if LogSecrets.reads(row) { tested.append(row.rowId) }
        }
        var entries: [Int64] = []
        dump.forEachLogEntry(LogQuery()) { entry in
            if entry.withData({ Dump.statesSecrets(event: entry.event, data: $0) }) { entries.append(entry.rowId) }
        }
        let expected = Self.rows.enumerated().filter(\.element.read).map { Int64($0.offset + 1) }
        #expect(scanned == expected)
        // SQLite's own test, apart from the reader's second look: the URL records holding an `@`.
        let sql = try Database(path: path, mode: .readOnly).prepare(
            "SELECT id FROM log_entries WHERE event IN ('http.request', 'auth.refresh') AND bgeo_holds_at(data) ORDER BY id")
        var holding: [Int64] = []
        while try sql.step() { holding.append(sql.int64(0)) }
        let urlRecords = Self.rows.enumerated().filter { $0.element.read && Dump.urlSecretEvents.contains($0.element.event) }
        #expect(holding == urlRecords.map { Int64($0.offset + 1) })
        #expect(tested == expected)
        #expect(entries == expected)
    }

    /// Each way of learning the log's secrets learns the request's and the refresh's passwords,
    /// read from the bytes (`\/` a slash) or, where an escape may stand in one, from the parse.
    @Test func everyLearningLearnsARequestsPassword() throws {
        let dir = TestDirectory("url-record-learning")
        let path = dir.file("bgeo.db")
        try Self.dump(path)
        let upFront = try Dump(path: path).makeRedactor(enabled: true, inParts: false)
        var learning = SecretRowLearning(configLines: nil)
        let folded = try Dump(path: path).makeRedactor(learning: &learning)
        let counted = try DumpSummary(dump: try Dump(path: path), redacting: true).redactor
        for redactor in [upFront, folded, counted] {
            #expect(redactor.knownSecrets.isSuperset(of: ["pw-in-request", "pw-in-refresh", "in-a-blob", "slashed-pw-1", "escAped-pw"]),
                    "\(redactor.knownSecrets)")
            #expect(!redactor.knownSecrets.contains(#"esc\u0041ped-pw"#) && !redactor.knownSecrets.contains("esc"))
            #expect(!redactor.knownSecrets.contains("pw"))
        }
    }
}
