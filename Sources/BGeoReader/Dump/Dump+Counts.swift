import Foundation

/// Whole-table counts and single-row lookups the summaries need: the reader's SQL, kept here so
/// that no folder outside `Dump/` queries the dump's tables (`SourceLayoutTests` checks).
extension Dump {
    /// Rows in the queue table (every row, readable or not); nil without a queue or when the
    /// count cannot be read.
    public func queueRowCount() -> Int? {
        guard let table = layout.queueTable else { return nil }
        return count("SELECT count(*) FROM \(quoteIdentifier(table))")
    }

    /// Rows in `log_entries`; nil without a log or when the count cannot be read.
    public func logRowCount() -> Int? {
        guard layout.hasLog else { return nil }
        return count("SELECT count(*) FROM log_entries")
    }

    /// The `ts` text of one log row, as stored.
    public func logTimestampText(rowId: Int64) -> String? {
        guard let stmt = try? database.prepare("SELECT ts FROM log_entries WHERE id = ?"),
              (try? stmt.bind([.integer(rowId)])) != nil, (try? stmt.step()) == true else { return nil }
        return stmt.text(0)
    }

    /// The log's values of `column` (`src`, `event`), most frequent first, at most `limit`.
    public func logValues(of column: LogColumn, limit: Int = 40) -> [String] {
        guard layout.hasLog, let stmt = try? database.prepare(
            "SELECT \(column.rawValue), COUNT(*) FROM log_entries GROUP BY \(column.rawValue) ORDER BY 2 DESC, 1 LIMIT \(max(0, limit))")
        else { return [] }
        var values: [String] = []
        while (try? stmt.step()) == true { if let text = stmt.text(0) { values.append(text) } }
        return values
    }

    /// A log column whose distinct values a note may list.
    public enum LogColumn: String, Sendable {
        case src, event
    }

    private func count(_ sql: String) -> Int? {
        guard let stmt = try? database.prepare(sql), (try? stmt.step()) == true else { return nil }
        return stmt.int(0)
    }
}
