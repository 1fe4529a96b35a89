import BGeoSQLite

extension Dump {
    /// The rows a report embeds from `table` whatever the findings: the first `head` and last
    /// `tail` by id, found through the rowid index without scanning the table, so a million-row
    /// table costs the same as a small one. Returns the ids ascending and the table's row count.
    package func reportRowIds(table: String, head: Int, tail: Int) -> (ids: [Int64], total: Int) {
        var chosen: Set<Int64> = []
        var total = 0
        let quoted = quoteIdentifier(table)
        do {
            let count = try database.prepare("SELECT count(*) FROM \(quoted)")
            if try count.step() { total = count.int(0) }
            for (order, limit) in [("ASC", head), ("DESC", tail)] where limit > 0 {
                let stmt = try database.prepare("SELECT id FROM \(quoted) ORDER BY id \(order) LIMIT \(limit)")
                while try stmt.step() { chosen.insert(stmt.int64(0)) }
            }
        } catch {
            warnScanFailure(error, table: table, afterRow: nil)
        }
        return (chosen.sorted(), total)
    }

    /// The rows of `table` (a queue table with a `uuid` column) whose uuid is in `uuids`, through
    /// the uuid index: their ids, and the first row of each uuid. Uuids by their bytes
    /// (`ExactText`), as the index matches them: two spellings are two uuids, each with its row.
    package func rowIds(ofUUIDs uuids: Set<ExactText>, table: String) -> (ids: Set<Int64>, uuidRows: [ExactText: Int64]) {
        var ids: Set<Int64> = []
        var uuidRows: [ExactText: Int64] = [:]
        guard !uuids.isEmpty, table != "log_entries", layout.queueSelection.hasUUID else { return ([], [:]) }
        let quoted = quoteIdentifier(table)
        let list = Array(uuids)
        do {
            for start in stride(from: 0, to: list.count, by: 500) {
                let part = Array(list[start..<min(start + 500, list.count)])
                let stmt = try database.prepare("SELECT id, uuid FROM \(quoted) WHERE uuid IN (" + part.map { _ in "?" }.joined(separator: ",") + ")")
                try stmt.bind(part.map { .text($0.text) })
                while try stmt.step() {
                    let id = stmt.int64(0)
                    ids.insert(id)
                    if let uuid = stmt.text(1).map({ ExactText($0) }), uuidRows[uuid].map({ id < $0 }) ?? true { uuidRows[uuid] = id }
                }
            }
        } catch {
            warnScanFailure(error, table: table, afterRow: nil)
        }
        return (ids, uuidRows)
    }

    /// `WHERE id IN (…)` for our own integer ids, in chunks SQLite accepts.
    func inClauses(_ ids: [Int64]) -> [String] {
        stride(from: 0, to: ids.count, by: 5000).map { start in
            "id IN (" + ids[start..<min(start + 5000, ids.count)].map(String.init).joined(separator: ",") + ")"
        }
    }

    /// Queue rows by id (ascending), raw: what the queue table shows. Undecodable JSON is kept as text.
    package func queueRows(ids: [Int64]) -> [QueueRow] {
        guard let table = layout.queueTable else { return [] }
        return rows(ids: ids, of: table, columns: layout.queueSelection.selectList) { stmt in
            QueueRowCells(stmt: stmt, rowId: stmt.int64(QueueColumns.rowId)).stored().row
        }
    }

    /// Log rows by id (ascending), as stored: a row whose `ts` does not parse is still shown (time 0).
    package func logEntries(ids: [Int64]) -> [LogEntry] {
        guard layout.hasLog else { return [] }
        return rows(ids: ids, of: "log_entries", columns: LogColumns.selectList) { stmt in
            LogEntry(cells: stmt, rowId: stmt.int64(LogColumns.rowId),
                     time: stmt.withUTF8(LogColumns.ts) { $0.flatMap(Timestamp.parse(bytes:)) } ?? 0,
                     event: stmt.text(LogColumns.event) ?? "", includeText: true)
        }
    }

    /// The rows of `table` with these ids, ascending, each made by `row` from its cells (`columns`,
    /// the row id first). A statement that fails becomes a located warning; its rows are missing.
    private func rows<Row>(ids: [Int64], of table: String, columns: String, _ row: (Statement) -> Row) -> [Row] {
        var rows: [Row] = []
        for clause in inClauses(ids) {
            do {
                let stmt = try database.prepare("SELECT \(columns) FROM \(quoteIdentifier(table)) WHERE \(clause) ORDER BY id")
                while try stmt.step() { rows.append(row(stmt)) }
            } catch {
                warnScanFailure(error, table: table, afterRow: nil)
            }
        }
        return rows
    }
}
