import Foundation
import Testing
@testable import BGeoReader
import BGeoSQLite

/// Regression (stop 52): `quoteIdentifier` doubled quotes by a `String` search, which compares
/// characters, and a quote followed by a combining mark (U+0301) is one character that is not a
/// quote: the name ended at that quote and the statement failed (or read on as SQL). A table and a
/// column named so, as a hostile dump may name them, are created, filled and read back through it
/// on a real SQLite file.
@Suite struct QuotedIdentifierTests {
    @Test func aQuoteBeforeACombiningMarkStaysInsideTheName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ident-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try Database(path: folder + "/names.db", mode: .readWriteCreate)
        let table = "t\"\u{301}x; DROP TABLE y", column = "c\"\u{301}"
        try db.execute("CREATE TABLE \(quoteIdentifier(table)) (\(quoteIdentifier(column)) INTEGER)")
        try db.execute("INSERT INTO \(quoteIdentifier(table)) VALUES (7)")
        let read = try db.prepare("SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table))")
        #expect(try read.step())
        #expect(read.cell(0) == .integer(7))
        let names = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        #expect(try names.step())
        #expect(names.cell(0) == .text(table))
    }

    @Test func everyQuoteByteIsDoubledWhateverFollowsIt() {
        #expect(quoteIdentifier("a\"b") == "\"a\"\"b\"")
        #expect(quoteIdentifier("\"\u{301}") == "\"\"\"\u{301}\"")
        #expect(QuotedText.quoted("x,\"\u{301}", by: UInt8(ascii: "\"")) == "\"x,\"\"\u{301}\"")
        #expect(QuotedText.holdsAny(of: ",", in: "a,\u{301}b"))
        #expect(!QuotedText.holdsAny(of: ",\"", in: "a\u{301}b"))
    }
}
