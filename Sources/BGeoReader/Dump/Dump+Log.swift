import Foundation
import BGeoSQLite

extension Dump {
    /// The log's first row id and the times of its first and last rows by id (two index seeks,
    /// whatever the log's size); nil where there is no log or the row's `ts` is not a time. A
    /// first id above 1 means older rows were deleted (logMaxDays, the 25,000-row cap).
    public func logBounds() -> (firstId: Int64?, first: Double?, last: Double?) {
        guard layout.hasLog else { return (nil, nil, nil) }
        func row(_ order: String) -> (id: Int64, ts: Double?)? {
            guard let stmt = try? database.prepare("SELECT id, ts FROM log_entries ORDER BY id \(order) LIMIT 1"),
                  (try? stmt.step()) == true else { return nil }
            return (stmt.int64(0), stmt.text(1).flatMap(Timestamp.parse))
        }
        let first = row("ASC")
        return (first?.id, first?.ts, row("DESC")?.ts)
    }

    /// Streams `log_entries` in id order (or newest first), filtered. Rows with an unparseable
    /// `ts` are warned about and skipped; rows whose `data` is not JSON are warned about and
    /// still delivered (with `data` nil), so no event is lost from a timeline.
    public func forEachLogEntry(_ query: LogQuery = LogQuery(), _ body: (LogEntry) throws -> Void) rethrows {
        try forEachLogEntry(query, takenFromCells: nil, body)
    }

    /// Streams the rows of `query` from their cells only (no `LogEntry` is built): for readers
    /// that parse `data` themselves. A grep query needs the text, so it cannot be read this way.
    package func forEachLogRow(_ query: LogQuery, _ body: (LogRowView) -> Void) {
        precondition(query.grep == nil, "a grep query reads the rows' text")
        withoutActuallyEscaping(body) { body in
            forEachLogEntry(query, takenFromCells: { row in
                body(row)
                return true
            }) { _ in }
        }
    }

    /// `forEachLogEntry`, offering each row first to `takenFromCells` (after the same filters
    /// and the same validation, so the same warnings): a row it handles from the raw cells
    /// (returns true) is not built into a `LogEntry` nor passed to `body`. A grep query offers
    /// none (it needs the text). `rows` limits the read to those row ids; `continuing`, when
    /// given, sees each row id the statement yields before anything else is done with the row,
    /// and ends the read by returning false (a piped read's part: see `PipedSink`); `after`, the
    /// rows after that id only (where the caller reads on from rows a `PipedRead` stood for).
    /// `takerChecksData`: `takenFromCells` checks the data of every row it takes
    /// (`LogRowView.checkData`, the same warning, before any of its own), so this read checks only
    /// the rows it declines — a taker whose own parse validates the JSON spares a second pass.
    package func forEachLogEntry(_ query: LogQuery, rows: Range<Int64>? = nil, after: Int64? = nil, continuing: ((Int64) -> Bool)? = nil,
                         takenFromCells: ((LogRowView) -> Bool)?, takerChecksData: Bool = false,
                         _ body: (LogEntry) throws -> Void) rethrows {
        guard layout.hasLog else { return }
        let table = "log_entries"
        var conditions: [String] = []
        var bindings: [SQLValue] = []
        if let maxLevel = query.maxLevel {
            conditions.append("level <= ?")
            bindings.append(.integer(Int64(maxLevel.rawValue)))
        }
        if let src = query.src {
            conditions.append("src = ?")
            bindings.append(.text(src))
        }
        let exact = query.events.filter { !$0.hasSuffix("*") }
        if !query.events.isEmpty, exact.count == query.events.count {
            let listed = "event IN (" + exact.map { _ in "?" }.joined(separator: ",") + ")"
            bindings.append(contentsOf: exact.map { .text($0) })
            if query.eventsHoldingAt.isEmpty {
                conditions.append(listed)
            } else {
                let holding = "event IN (" + query.eventsHoldingAt.map { _ in "?" }.joined(separator: ",") + ")"
                conditions.append("(\(listed) OR (\(holding) AND bgeo_holds_at(data)))")
                bindings.append(contentsOf: query.eventsHoldingAt.map { .text($0) })
            }
        }
        var scan = RowScan(columns: LogColumns.selectList, table: table,
                           conditions: conditions, bindings: bindings, descending: query.order == .newestFirst)
        scan.rows = rows
        scan.startsAfter = after
        let grep = query.grep.map(LogGrep.init)
        let eventMatch = LogQuery.EventMatch(query.events)
        let statusScanner = query.statuses.isEmpty ? nil : FieldScanner(paths: ["status"])
        var statusFields: [FieldScanner.Field] = []
        var emitted = 0
        try scanRows(scan) { stmt, rowId in
            if let continuing, !continuing(rowId) { return false }
            guard let time = stmt.withUTF8(LogColumns.ts, { $0.flatMap(Timestamp.parse(bytes:)) }) else {
                warnings.add(table: table, rowId: rowId, "ts '\(stmt.text(LogColumns.ts) ?? "NULL")' is not an ISO-8601 time")
                return true
            }
            // SQLite filtered these already, except after a damaged page (see RowScan.conditions).
            if let maxLevel = query.maxLevel, stmt.int(LogColumns.level) > maxLevel.rawValue { return true }
            if let src = query.src, stmt.text(LogColumns.src) != src { return true }
            let event = query.includeText || !query.events.isEmpty ? stmt.text(LogColumns.event) ?? "" : ""
            guard eventMatch.matches(event)
                    || (query.eventsHoldingAt.contains(event) && stmt.withUTF8(LogColumns.data, LogQuery.holdsAt)) else { return true }
            if let since = query.since, time < since { return true }
            if let until = query.until, time > until { return true }
            if let statusScanner {
                // The status as the row states it: a number (or a string holding one).
                let status: Int? = stmt.withUTF8(LogColumns.data) { data in
                    guard let data, statusScanner.scan(data, into: &statusFields) else { return nil }
                    let field = statusFields[0]
                    if let number = field.double, number.rounded() == number, abs(number) < 1e6 { return Int(number) }
                    return field.withStringBytes(in: data) { $0.flatMap { Int(String(decoding: $0, as: UTF8.self)) } }
                }
                guard let status, query.statuses.contains(status) else { return true }
            }
            // A grep decided on the cells skips a row that does not match (once checked) before
            // anything is built.
            let grepVerdict = grep.flatMap { grep in
                stmt.withUTF8(LogColumns.message) { message in stmt.withUTF8(LogColumns.data) { grep.verdict(message: message, data: $0) } }
            }
            let quick = grep == nil ? takenFromCells : nil
            let row = LogRowView(stmt: stmt, rowId: rowId, time: time, event: event)
            // Checked here before anything else sees the row, unless the taker checks what it takes.
            let checkedByTaker = quick != nil && takerChecksData
            if query.validatesData, !checkedByTaker { row.checkData(warnings) }
            if grepVerdict == false { return true }
            if let quick, quick(row) {
                emitted += 1
                return query.limit.map { emitted < $0 } ?? true
            }
            if query.validatesData, checkedByTaker { row.checkData(warnings) }
            let entry = LogEntry(cells: stmt, rowId: rowId, time: time, event: event,
                                 includeText: query.includeText || grep != nil)
            if let grep, grepVerdict == nil {
                guard grep.matches(message: entry.message, data: entry.dataText) else { return true }
            }
            try body(entry)
            emitted += 1
            return query.limit.map { emitted < $0 } ?? true
        }
    }
}

/// Where a log row stands: its id and its time. All that the handling of a row decoded
/// elsewhere (`LoggedRow`, an item of a `PipedRead`) still needs of it.
package protocol LogRowStamp {
    var rowId: Int64 { get }
    var time: Double { get }
}

/// A row's id and time, kept after its cells are gone.
package struct LoggedRow: LogRowStamp, Sendable {
    package let rowId: Int64
    package let time: Double

    package init(_ row: some LogRowStamp) {
        rowId = row.rowId
        time = row.time
    }
}

/// What a fix-line parser reads of a log row: from its cells (`LogRowView`, a scan that builds
/// no entry) or from a built `LogEntry` (a scan that hands every entry to an observer).
package protocol LogLineFields: LogRowStamp {
    var event: String { get }
    /// The `ts` cell as written.
    var tsText: String { get }
    /// Calls `body` with the `data` cell's UTF-8 bytes, nil when NULL.
    func withData<R>(_ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R
}

extension LogLineFields {
    /// The log read's check of a row's `data` (`LogQuery.validatesData`): text that is not valid
    /// JSON is kept as text, with this located warning. NULL data is no JSON to check. A parser
    /// whose scan validates the data anyway calls it only when its scan fails.
    package func checkData(_ warnings: WarningLog) {
        guard withData({ $0.map { !FieldScanner.isValidJSON($0) } ?? false }) else { return }
        warnings.add(table: "log_entries", rowId: rowId, "data is not valid JSON (kept as text)")
    }
}

extension LogEntry {
    /// A log row built from the cells of a read through `LogColumns`, its time and event already
    /// read; without `includeText`, the texts (ts as written, src, message, data) stay empty.
    init(cells stmt: Statement, rowId: Int64, time: Double, event: String, includeText: Bool) {
        self.init(rowId: rowId, tsText: includeText ? stmt.text(LogColumns.ts) ?? "" : "", time: time,
                  level: stmt.int(LogColumns.level), src: includeText ? stmt.text(LogColumns.src) ?? "" : "",
                  event: event, message: includeText ? stmt.text(LogColumns.message) : nil,
                  dataText: includeText ? stmt.text(LogColumns.data) : nil, uploaded: stmt.int(LogColumns.uploaded) != 0)
    }
}

extension LogEntry: LogLineFields {
    package func withData<R>(_ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard var text = dataText else { return body(nil) }
        return text.withUTF8 { body($0) }
    }
}

/// A log row that passed the query's filters, read from its cells without building a String
/// (valid only during the callback: it points into SQLite's row).
package struct LogRowView: LogLineFields {
    package let stmt: Statement
    package let rowId: Int64
    package let time: Double
    /// The event's name when the query filters by event or wants the text (else empty).
    package let event: String

    /// The `ts` cell as written (built now).
    package var tsText: String { stmt.text(LogColumns.ts) ?? "" }

    /// Calls `body` with the `event` cell's bytes, nil when NULL.
    package func withEvent<R>(_ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R { stmt.withUTF8(LogColumns.event, body) }

    /// Calls `body` with the `data` cell's bytes, nil when NULL.
    package func withData<R>(_ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R { stmt.withUTF8(LogColumns.data, body) }

    /// The index in `names` (UTF-8) of the row's event, nil when it is none of them or NULL: one
    /// read of the cell for several comparisons.
    package func eventIndex(in names: [[UInt8]]) -> Int? {
        stmt.withUTF8(LogColumns.event) { bytes in bytes.flatMap { bytes in names.firstIndex { $0.elementsEqual(bytes) } } }
    }

    /// The `level` cell, as `LogEntry.level` reads it.
    package var level: Int { stmt.int(LogColumns.level) }

    /// The `uploaded` cell, as `LogEntry.uploaded` reads it.
    package var uploaded: Bool { stmt.int(LogColumns.uploaded) != 0 }
}
