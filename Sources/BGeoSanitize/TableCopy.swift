import BGeoForensics
import BGeoSQLite
/// One table's rows read in storage order, sanitised, counted, and handed over in batches ready
/// to insert (row id first when the table needs it). The caller decides where batches go: the
/// working database directly, or a channel to the thread that owns it.
enum TableCopy {
    static let batchSize = 256

    /// Streams `table`; `emit` returns false to stop (the consumer failed).
    static func sanitise(_ table: SourceTable, from dump: Dump, rows: RowSanitizer,
                         emit: ([[CellValue]]) -> Bool) -> TableTally {
        let rule = TableRule.rule(for: table, layout: dump.layout)
        var tally = TableTally(table: table.name, columns: table.columns)
        var batch: [[CellValue]] = []
        batch.reserveCapacity(batchSize)
        var stopped = false
        dump.scanRows(table.scan) { stmt, rowId in
            var cells = [CellValue](repeating: .null, count: table.columns.count)
            for i in cells.indices { cells[i] = stmt.cell(i + 1) }
            // A marker from an earlier sanitisation is replaced (and kept inside the new one).
            if case .state = rule, rule.tag(cells) == SanitizationMarker.stateKey { return true }
            let changes = rows.sanitize(&cells, rule: rule)
            for i in cells.indices where cells[i] == .null && table.notNull[i] { cells[i] = .text("") }
            tally.rows += 1
            for (index, change) in changes.enumerated() { tally.columns[index].tally.add(change) }
            batch.append(table.insertsRowid ? [.integer(rowId)] + cells : cells)
            guard batch.count >= batchSize else { return true }
            defer { batch.removeAll(keepingCapacity: true) }
            if !emit(batch) { stopped = true }
            return !stopped
        }
        if !stopped, !batch.isEmpty { _ = emit(batch) }
        return tally
    }
}
