import BGeoForensics
import BGeoSQLite
/// One table's rows read in storage order, sanitised, counted, and handed over in batches ready
/// to insert (row id first when the table needs it). The caller decides where batches go: the
/// working database directly, or a channel to the thread that owns it.
enum TableCopy {
    static let batchSize = 256

    /// Rows of one table, sanitised and ready to insert, packed (`PackedRows`): a batch is made
    /// and freed as a whole, not cell by cell.
    struct Batch: Sendable {
        let table: SourceTable
        var rows: PackedRows
    }

    /// Streams `table`; `emit` returns false to stop (the consumer failed).
    static func sanitise(_ table: SourceTable, from dump: Dump, rows: RowSanitizer,
                         emit: (Batch) -> Bool) -> TableTally {
        let rule = TableRule.rule(for: table, layout: dump.layout)
        var tally = TableTally(table: table.name, columns: table.columns)
        let width = table.columns.count + (table.insertsRowid ? 1 : 0)
        func emptyBatch() -> Batch { Batch(table: table, rows: PackedRows(width: width, reservingRows: batchSize)) }
        var batch = emptyBatch()
        // One row's cells and changes, reused row after row.
        var cells = [CellValue](repeating: .null, count: table.columns.count)
        var changes = [CellChanges](repeating: [], count: table.columns.count)
        var stopped = false
        dump.scanRows(table.scan) { stmt, rowId in
            for i in cells.indices { cells[i] = stmt.cell(i + 1) }
            // A marker from an earlier sanitisation is replaced (and kept inside the new one).
            if case .state = rule, rule.tag(cells) == SanitizationMarker.stateKey { return true }
            rows.sanitize(&cells, rule: rule, changes: &changes)
            for i in cells.indices where cells[i] == .null && table.notNull[i] { cells[i] = .text("") }
            tally.rows += 1
            for (index, change) in changes.enumerated() { tally.columns[index].tally.add(change) }
            if table.insertsRowid { batch.rows.append(.integer(rowId)) }
            for cell in cells { batch.rows.append(cell) }
            guard batch.rows.rowCount >= batchSize else { return true }
            if !emit(batch) { stopped = true }
            batch = emptyBatch()
            return !stopped
        }
        if !stopped, !batch.rows.isEmpty { _ = emit(batch) }
        return tally
    }
}
