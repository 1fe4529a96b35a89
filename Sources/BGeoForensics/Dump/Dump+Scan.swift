import CSQLite

/// One streaming read of a table in row-id order: `SELECT <columns> FROM <table> [WHERE …]
/// ORDER BY id`, with the row id as the first column. Kept in parts so that a read stopped by a
/// damaged page can be resumed past it (see `Dump.scanRows`).
struct RowScan {
    /// The selected columns; the first must be the row id.
    var columns: String
    var table: String
    /// Filters SQLite applies while the table reads cleanly. After a damaged page the scan goes
    /// on without them (it must see every row to know where it is), so the row callback must
    /// skip rows that do not meet them itself.
    var conditions: [String] = []
    var bindings: [SQLValue] = []
    var descending = false

    /// The statement; when `resumeAt` is given, from that row id on (in scan order), unfiltered.
    func sql(resumingAt resumeAt: Int64?) -> (sql: String, bindings: [SQLValue]) {
        var conditions = conditions
        var bindings = bindings
        if let resumeAt {
            conditions = [descending ? "id <= ?" : "id >= ?"]
            bindings = [.integer(resumeAt)]
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return ("SELECT \(columns) FROM \(quoteIdentifier(table))\(whereClause) ORDER BY id \(descending ? "DESC" : "ASC")", bindings)
    }

    /// True when row id `a` comes before `b` in this scan's order.
    func isBefore(_ a: Int64, _ b: Int64) -> Bool { descending ? a > b : a < b }
}

extension Dump {
    /// How many damaged stretches one scan steps over before it gives up on the table (each
    /// costs about a hundred index seeks; a file this damaged is not read further).
    static let maxSkippedStretches = 1000

    /// Steps through the rows of `scan`, calling `row` for each until it returns false. A
    /// statement that cannot run becomes a located warning on the table. A damaged or missing
    /// page hit mid-scan (a truncated file, flipped bytes) does not end the read: like SQLite's
    /// recovery, which reads every page it can rather than stopping at the first bad one, the
    /// scan finds the next row id whose page can be reached (seeks with growing steps, then a
    /// binary search), warns which ids it stepped over, and goes on from there.
    func scanRows(_ scan: RowScan, _ row: (Statement, Int64) throws -> Bool) rethrows {
        var resumeAt: Int64?
        var stretches = 0
        while true {
            let stmt: Statement
            do {
                let (sql, bindings) = scan.sql(resumingAt: resumeAt)
                stmt = try database.prepare(sql)
                try stmt.bind(bindings)
            } catch {
                warnScanFailure(error, table: scan.table, afterRow: nil)
                return
            }
            var lastRow: Int64?
            var failure: SQLiteError?
            while true {
                let hasRow: Bool
                do { hasRow = try stmt.step() } catch {
                    failure = error
                    break
                }
                guard hasRow else { return }
                let rowId = stmt.int64(0)
                // Ids come in order from an intact b-tree; one that does not is a garbled page.
                let outOfOrder = lastRow.map { !scan.isBefore($0, rowId) } ?? resumeAt.map { scan.isBefore(rowId, $0) } ?? false
                if outOfOrder {
                    failure = SQLiteError(code: SQLITE_CORRUPT, message: "row ids out of order (a garbled page)")
                    break
                }
                lastRow = rowId
                guard try row(stmt, rowId) else { return }
            }
            guard let failure else { return }
            stretches += 1
            guard stretches <= Dump.maxSkippedStretches else {
                warnScanFailure(failure, table: scan.table, afterRow: lastRow ?? resumeAt)
                return
            }
            let origin: Int64?
            if lastRow == nil, let row = resumeAt {
                // The row this read resumed at was reached but cannot be read (an overflow page is
                // missing, its cell is garbled): that row is lost, the scan goes on after it.
                warnings.add(table: scan.table, rowId: row, "this row could not be read (\(failure.message)); skipped")
                origin = row
            } else {
                origin = lastRow
            }
            let (next, steppedOver) = nextReadableRow(scan, after: origin)
            let position = origin.map { "after row \($0)" } ?? "at its first row"
            guard let next else {
                if steppedOver || lastRow != nil || resumeAt == nil { warnScanFailure(failure, table: scan.table, afterRow: origin) }
                return
            }
            if steppedOver {
                let span = origin.map { "between rows \($0) and \(next)" } ?? (scan.descending ? "above row \(next)" : "below row \(next)")
                warnings.add(table: scan.table, rowId: origin,
                             "reading stopped \(position): \(failure.message); any rows \(span) could not be reached "
                             + "(damaged or missing pages), reading went on from row \(next)")
            }
            resumeAt = next
        }
    }

    /// The first row id past `after` (in scan order) from which the table can be read again, or
    /// nil when there is none (the rest of the table is unreachable, or there are no more rows);
    /// `steppedOver` tells whether damaged stretches lay in between.
    private func nextReadableRow(_ scan: RowScan, after: Int64?) -> (next: Int64?, steppedOver: Bool) {
        // probe(id): the first row at or past `id` can be reached (or there is none): .row / .end.
        enum Probe { case row(Int64), end, damaged }
        let sql = "SELECT id FROM \(quoteIdentifier(scan.table)) WHERE id \(scan.descending ? "<=" : ">=") ? ORDER BY id \(scan.descending ? "DESC" : "ASC") LIMIT 1"
        guard let stmt = try? database.prepare(sql) else { return (nil, true) }
        func probe(_ id: Int64) -> Probe {
            do {
                try stmt.bind([.integer(id)])
                guard try stmt.step() else { return .end }
                let found = stmt.int64(0)
                // A garbled page can answer with an id before the one asked for.
                return scan.isBefore(found, id) ? .damaged : .row(found)
            } catch {
                return .damaged
            }
        }
        // Candidate ids, moving away from `after` in scan order; nil once past the end of Int64.
        let origin = after ?? (scan.descending ? Int64.max : Int64.min)
        func candidate(_ distance: UInt64) -> Int64? {
            let (value, overflow) = scan.descending
                ? origin.subtractingReportingOverflow(Int64(truncatingIfNeeded: distance))
                : origin.addingReportingOverflow(Int64(truncatingIfNeeded: distance))
            guard distance <= UInt64(Int64.max), !overflow else { return nil }
            return value
        }
        // With no row read yet the origin itself may hold the first row.
        var failing: UInt64 = 0
        var distance: UInt64 = after == nil ? 0 : 1
        var found: (distance: UInt64, probe: Probe)?
        while let id = candidate(distance) {
            let result = probe(id)
            if case .damaged = result {
                failing = distance
                guard distance < UInt64(Int64.max) else { break }
                distance = distance == 0 ? 1 : min(distance * 2, UInt64(Int64.max))
                continue
            }
            found = (distance, result)
            break
        }
        guard var best = found else { return (nil, true) }
        // Binary search between the last damaged probe and the first good one.
        var low = failing
        while best.distance > low + 1 {
            let mid = low + (best.distance - low) / 2
            guard let id = candidate(mid) else { break }
            let result = probe(id)
            if case .damaged = result { low = mid } else { best = (mid, result) }
        }
        let steppedOver = best.distance > (after == nil ? 0 : 1)
        guard case .row(let next) = best.probe else { return (nil, steppedOver) }
        return (next, steppedOver)
    }
}
