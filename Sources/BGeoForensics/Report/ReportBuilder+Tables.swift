import BGeoReader
import Foundation

/// The report's queue and log tables: which rows they show and how.
extension ReportBuilder {
    /// The first and last rows of the queue and log tables, each as what the table shows of it:
    /// picked on a second connection while the dump is read (they depend on nothing the reading
    /// finds), else here. The rows the findings and the replay cite are added afterwards.
    final class TablePicks {
        typealias Picks = (queue: PickedRows<QueueRow, [JSONValue]>, log: PickedRows<LogEntry, LogRowShown>)
        private let scan: BesideRead<Picks>

        init(_ dump: Dump, cap: Int, redactor: Redactor) {
            scan = ScanRunner.beside(dump) { reader in TablePicks.pick(reader, cap: cap, redactor: redactor) }
        }

        /// The picks; the second connection's warnings go to the dump's now.
        func take() -> Picks {
            scan.value()
        }

        static func pick(_ dump: Dump, cap: Int, redactor: Redactor) -> Picks {
            var queue = PickedRows<QueueRow, [JSONValue]>.none(rowId: \.rowId)
            if let table = dump.layout.queueTable {
                let picked = dump.reportRowIds(table: table, head: cap / 2, tail: cap - cap / 2)
                queue = PickedRows(ids: picked.ids, total: picked.total, rows: dump.queueRows(ids: picked.ids), rowId: \.rowId) {
                    queueCells($0, redactor: redactor)
                }
            }
            var log = PickedRows<LogEntry, LogRowShown>.none(rowId: \.rowId)
            if dump.layout.hasLog {
                let picked = dump.reportRowIds(table: "log_entries", head: cap / 2, tail: cap - cap / 2)
                log = PickedRows(ids: picked.ids, total: picked.total, rows: dump.logEntries(ids: picked.ids), rowId: \.rowId) {
                    logCells($0, redactor: redactor)
                }
            }
            return (queue, log)
        }
    }

    /// The anchors' row ids in one table (`queue-12` → 12 for the prefix `queue-`).
    static func rowIds(_ anchors: Set<String>, prefix: String) -> Set<Int64> {
        Set(anchors.compactMap { $0.hasPrefix(prefix) ? Int64($0.dropFirst(prefix.count)) : nil })
    }

    /// A queue row's cells in the table.
    static func queueCells(_ row: QueueRow, redactor: Redactor) -> [JSONValue] {
        let parsed = try? JSONParser.parse(row.json)
        func num(_ path: String) -> JSONValue {
            guard let v = parsed?.value(atPath: path)?.doubleValue, v.isFinite else { return .null }
            return .double(v)
        }
        var event = parsed?["event"]?.stringValue ?? ""
        if let g = parsed?["geofence"] {
            event = "geofence " + (g["action"]?.stringValue ?? "") + " " + (g["identifier"]?.stringValue ?? "")
        }
        let extras: String
        if let parsed {
            extras = parsed["extras"].map { redactor.redact($0).jsonText } ?? ""
        } else {
            extras = "unreadable: " + redactor.redact(text: row.json)
        }
        return [.int(row.rowId), .string(row.uuid), .string(row.timestampText), .string(row.kind.rawValue),
                num("coords.latitude"), num("coords.longitude"), num("coords.accuracy"), num("coords.speed"),
                num("odometer"), .string(redactor.redact(text: event)), .string(truncate(extras, 400))]
    }

    static func buildQueueTable(_ picked: PickedRows<QueueRow, [JSONValue]>, offsets: inout Set<Int>) -> ReportTable {
        for (row, _) in picked.rows { offset(row.timestampText, into: &offsets) }
        let columns = [ReportTable.Column("row", numeric: true), .init("uuid", identifier: true), .init("timestamp", identifier: true),
                       .init("kind", identifier: true),
                       .init("latitude", numeric: true), .init("longitude", numeric: true), .init("accuracy m", numeric: true),
                       .init("speed m/s", numeric: true), .init("odometer m", numeric: true), .init("event"), .init("extras / record")]
        let cells = picked.rows.map(\.shown)
        return ReportTable(id: "queue", title: "Queue (pending records, drain order)", columns: columns, rows: cells,
                           anchors: picked.rows.map { "queue-\($0.row.rowId)" }, total: picked.total,
                           note: picked.total > cells.count ? note(cells.count, picked.total, "locations") : nil)
    }

    static func note(_ shown: Int, _ total: Int, _ command: String) -> String {
        "Showing \(shown) of \(total) rows (the first and last ones, and every row a finding cites). Full data: bgeo-forensics \(command) DUMP --format csv."
    }

    /// What the log table shows of a row: its cells, and its line under a finding that cites it.
    typealias LogRowShown = (cells: [JSONValue], line: String)

    static func logCells(_ e: LogEntry, redactor: Redactor) -> LogRowShown {
        let (data, words) = shownData(e, redactor: redactor)
        let message = redactor.redact(text: e.message ?? "")
        let cells: [JSONValue] = [.int(e.rowId), .string(e.tsText), .string(e.levelName), .string(e.src), .string(e.event),
                                  .string(truncate(message, 400)), data]
        let line = [e.tsText, e.levelName, e.event, truncate(message, 160), words]
            .filter { !$0.isEmpty }.joined(separator: " · ")
        return (cells, line)
    }

    /// A row's data as the log table shows it (its redacted text, cut at 600 characters) and as
    /// its evidence line reads it (`readable`, cut at 240). Read from the text while it is
    /// redacted (`RedactedJSONText.shown`), as far as the cuts need — a 60 MB row is not parsed
    /// into a tree — unless the start it read is too short to cut by characters (then as before).
    static func shownData(_ e: LogEntry, redactor: Redactor) -> (cell: JSONValue, words: String) {
        let (dataLimit, wordsLimit) = (600, 240)
        func cut(_ text: String, complete: Bool, _ limit: Int) -> String? {
            RedactedJSONText.cutsAsWhole(text, complete: complete, at: limit) ? truncate(text, limit) : nil
        }
        if let stored = e.dataText, let shown = RedactedJSONText.shown(stored, redactor: redactor, bytes: 4 * (dataLimit + 8)),
           let data = cut(shown.json, complete: shown.jsonComplete, dataLimit),
           let words = cut(shown.readable, complete: shown.readableComplete, wordsLimit) {
            return (.string(data), words)
        }
        let redacted = e.data.map { redactor.redact($0) }
        let data = redacted?.jsonText ?? e.dataText.map { redactor.redact(text: $0) } ?? ""
        return (.string(truncate(data, dataLimit)), truncate(redacted.map(readable) ?? data, wordsLimit))
    }

    static func buildLogTable(_ picked: PickedRows<LogEntry, LogRowShown>, offsets: inout Set<Int>) -> ReportTable {
        for (e, _) in picked.rows { offset(e.tsText, into: &offsets) }
        let columns = [ReportTable.Column("row", numeric: true), .init("ts", identifier: true), .init("level", identifier: true),
                       .init("src", identifier: true), .init("event", identifier: true),
                       .init("message"), .init("data")]
        let rows = picked.rows.map(\.shown.cells)
        var table = ReportTable(id: "log", title: "Log", columns: columns, rows: rows, anchors: picked.rows.map { "log-\($0.row.rowId)" },
                                total: picked.total, note: picked.total > rows.count ? note(rows.count, picked.total, "logs") : nil)
        table.evidenceLines = picked.rows.map(\.shown.line)
        return table
    }
}
