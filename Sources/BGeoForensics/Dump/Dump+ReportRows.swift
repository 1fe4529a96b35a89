extension Dump {
    /// The rows a report embeds from `table` whatever the findings: the first `head` and last
    /// `tail` by id, found through the rowid index without scanning the table, so a million-row
    /// table costs the same as a small one. Returns the ids ascending and the table's row count.
    func reportRowIds(table: String, head: Int, tail: Int) -> (ids: [Int64], total: Int) {
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
    /// the uuid index: their ids, and the first row of each uuid.
    func rowIds(ofUUIDs uuids: Set<String>, table: String) -> (ids: Set<Int64>, uuidRows: [String: Int64]) {
        var ids: Set<Int64> = []
        var uuidRows: [String: Int64] = [:]
        guard !uuids.isEmpty, table != "log_entries", layout.queueColumns.contains("uuid") else { return ([], [:]) }
        let quoted = quoteIdentifier(table)
        let list = Array(uuids)
        do {
            for start in stride(from: 0, to: list.count, by: 500) {
                let part = Array(list[start..<min(start + 500, list.count)])
                let stmt = try database.prepare("SELECT id, uuid FROM \(quoted) WHERE uuid IN (" + part.map { _ in "?" }.joined(separator: ",") + ")")
                try stmt.bind(part.map { .text($0) })
                while try stmt.step() {
                    let id = stmt.int64(0)
                    ids.insert(id)
                    if let uuid = stmt.text(1), uuidRows[uuid].map({ id < $0 }) ?? true { uuidRows[uuid] = id }
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
    func queueRows(ids: [Int64]) -> [QueueRow] {
        guard let table = layout.queueTable, !ids.isEmpty else { return [] }
        let col = quoteIdentifier(layout.recordColumn)
        func column(_ name: String) -> String { layout.queueColumns.contains(name) ? name : "NULL" }
        var rows: [QueueRow] = []
        for clause in inClauses(ids) {
            let sql = """
                SELECT id, \(column("uuid")), \(column("timestamp")), \(column("kind")), \(column("created_at")), \(col), \(column("attempts"))
                FROM \(quoteIdentifier(table)) WHERE \(clause) ORDER BY id
                """
            do {
                let stmt = try database.prepare(sql)
                while try stmt.step() {
                    let json = stmt.text(5) ?? ""
                    var uuid = stmt.text(1), ts = stmt.text(2)
                    var kind = stmt.text(3).flatMap(RecordKind.init(rawValue:))
                    if uuid == nil || ts == nil || kind == nil, let parsed = try? JSONParser.parse(json) {
                        uuid = uuid ?? parsed["uuid"]?.stringValue
                        ts = ts ?? parsed["timestamp"]?.stringValue
                        kind = kind ?? (parsed["geofence"] != nil ? .geofence : .location)
                    }
                    rows.append(QueueRow(rowId: stmt.int64(0), uuid: uuid ?? "", timestampText: ts ?? "", kind: kind ?? .location,
                                         createdAt: stmt.text(4), json: json, attempts: stmt.isNull(6) ? nil : stmt.int(6)))
                }
            } catch {
                warnScanFailure(error, table: table, afterRow: nil)
            }
        }
        return rows
    }

    /// Log rows by id (ascending), as stored: a row whose `ts` does not parse is still shown (time 0).
    func logEntries(ids: [Int64]) -> [LogEntry] {
        guard layout.hasLog, !ids.isEmpty else { return [] }
        var entries: [LogEntry] = []
        for clause in inClauses(ids) {
            do {
                let stmt = try database.prepare("SELECT id, ts, level, src, event, message, data, uploaded FROM log_entries WHERE \(clause) ORDER BY id")
                while try stmt.step() {
                    let ts = stmt.text(1) ?? ""
                    entries.append(LogEntry(rowId: stmt.int64(0), tsText: ts, time: Timestamp.parse(ts) ?? 0, level: stmt.int(2),
                                            src: stmt.text(3) ?? "", event: stmt.text(4) ?? "", message: stmt.text(5),
                                            dataText: stmt.text(6), uploaded: stmt.int(7) != 0))
                }
            } catch {
                warnScanFailure(error, table: "log_entries", afterRow: nil)
            }
        }
        return entries
    }
}
