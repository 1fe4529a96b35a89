import Foundation
import Testing
@testable import BGeoSQLite

/// Rows packed by one thread and inserted by another: every cell reaches the table with its
/// storage class and every byte — an empty text is not NULL, a NUL inside a text is kept, an
/// empty blob is a blob.
@Suite struct PackedRowsTests {
    @Test func packedRowsInsertAsTheirCells() throws {
        let rows: [[CellValue]] = [
            [.integer(1), .text("native"), .text(""), .null, .real(52.5)],
            [.integer(-9_223_372_036_854_775_808), .text("caf\u{e9} \u{202E}"), .text("a\u{0}b"), .blob([]), .real(-0.0)],
            [.integer(3), .blob([0, 255, 7]), .text(String(repeating: "x", count: 100_000)), .null, .integer(0)],
        ]
        var packed = PackedRows(width: 5, reservingRows: 2)
        for row in rows { for cell in row { packed.append(cell) } }
        #expect(packed.rowCount == 3)
        for (index, row) in rows.enumerated() {
            #expect(packed.row(index).map { packed.value($0) } == row)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("packed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try Database(path: folder + "/t.db", mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (a, b, c, d, e)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        for index in 0..<packed.rowCount { try packed.run(insert, row: index) }
        let read = try db.prepare("SELECT a, b, c, d, e FROM t ORDER BY rowid")
        var back: [[CellValue]] = []
        while try read.step() { back.append((0..<5).map { read.cell($0) }) }
        #expect(back == rows)
    }
}
