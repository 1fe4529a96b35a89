import BGeoSQLite

/// One streaming read of a table in row-id order: `SELECT <columns> FROM <table> [WHERE …]
/// ORDER BY id`, with the row id as the first column. Kept in parts so that a read stopped by a
/// damaged page can be resumed past it (see `Dump.scanRows`).
package struct RowScan {
    /// The selected columns; the first must be the row id.
    var columns: String
    var table: String
    /// Filters SQLite applies. A scan resumed past a damaged page reads the salvaged rows with
    /// them too; the row callback still checks what it can (a salvaged cell may not compare as
    /// the original did).
    var conditions: [String] = []
    var bindings: [SQLValue] = []
    /// Only the row ids in this range (a part of a split or piped read): a condition SQLite
    /// applies, and a check `Dump.scanRows` makes on every row it hands over, salvaged or not, so
    /// no reader of a part sees a row of another part.
    var rows: Range<Int64>?
    var descending = false
    /// The column the scan is ordered by and resumed on: `id` in the dump's own tables, `rowid`
    /// in any other table; nil for a WITHOUT ROWID table (read in storage order, never resumed).
    var idColumn: String? = "id"
    /// Where a read goes on from rows another connection stood for (`PipedRead`): only the rows
    /// after this id (in scan order), and a damaged page met first is "after" it, as in the pass
    /// that read those rows itself.
    var startsAfter: Int64?

    package init(columns: String, table: String, conditions: [String] = [], bindings: [SQLValue] = [],
                 descending: Bool = false, idColumn: String? = "id") {
        self.columns = columns
        self.table = table
        self.conditions = conditions
        self.bindings = bindings
        self.descending = descending
        self.idColumn = idColumn
    }

    /// The statement; when `resumeAt` is given, from that row id on (in scan order), unfiltered.
    func sql(resumingAt resumeAt: Int64?) -> (sql: String, bindings: [SQLValue]) {
        var conditions = conditions
        var bindings = bindings
        if let rows, let idColumn {
            conditions = ["\(idColumn) >= ?", "\(idColumn) < ?"] + conditions
            bindings = [.integer(rows.lowerBound), .integer(rows.upperBound)] + bindings
        }
        if let resumeAt, let idColumn {
            conditions = [descending ? "\(idColumn) <= ?" : "\(idColumn) >= ?"]
            bindings = [.integer(resumeAt)]
        } else if let startsAfter, let idColumn {
            conditions.append(descending ? "\(idColumn) < ?" : "\(idColumn) > ?")
            bindings.append(.integer(startsAfter))
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let order = idColumn.map { " ORDER BY \($0) \(descending ? "DESC" : "ASC")" } ?? ""
        return ("SELECT \(columns) FROM \(quoteIdentifier(table))\(whereClause)\(order)", bindings)
    }

    /// True when row id `a` comes before `b` in this scan's order.
    func isBefore(_ a: Int64, _ b: Int64) -> Bool { descending ? a > b : a < b }

    /// Whether the row `rowId` is one this scan reads (`rows`).
    func covers(_ rowId: Int64) -> Bool { rows?.contains(rowId) ?? true }
}

extension Dump {
    /// How many damaged stretches a salvage steps over before it gives up on the table's b-tree
    /// (each costs about a hundred seeks; the leaf pages are still read).
    static let maxSkippedStretches = 1000

    /// Steps through the rows of `scan`, calling `row` for each until it returns false. A
    /// statement that cannot run becomes a located warning on the table. A damaged or missing
    /// page met mid-scan (a truncated file, flipped bytes) does not end the read: the table is
    /// salvaged (`SalvagedTable`: every row still reachable, and the rows of leaf pages cut off
    /// from their b-tree) and the scan goes on there, after the last row it read, with the same
    /// SQL. A warning says where it stopped and how the rest was read.
    package func scanRows(_ scan: RowScan, _ row: (Statement, Int64) throws -> Bool) rethrows {
        let (sql, bindings) = scan.sql(resumingAt: nil)
        let stmt: Statement
        do {
            stmt = try database.prepare(sql)
            try stmt.bind(bindings)
        } catch {
            scanInterrupted = true
            warnScanFailure(error, table: scan.table, afterRow: nil)
            return
        }
        var lastRow = scan.startsAfter
        while true {
            let hasRow: Bool
            do throws(SQLiteError) {
                hasRow = try stmt.step()
                // Ids come in order from an intact b-tree; one that does not is a garbled page.
                if hasRow, scan.idColumn != nil, let lastRow, !scan.isBefore(lastRow, stmt.int64(0)) {
                    throw SQLiteError(code: SQLiteError.Code.corrupt, message: "row ids out of order (a garbled page)")
                }
            } catch {
                scanInterrupted = true
                guard salvagesOnDamage, scan.idColumn != nil, let salvage = salvaged(scan.table) else {
                    warnScanFailure(error, table: scan.table, afterRow: stopOfWholeRows(scan, after: lastRow))
                    return
                }
                if !salvage.announced, !salvageAnnounced.contains(scan.table) {
                    // Once per table: later scans of it read the salvaged rows silently.
                    salvage.announced = true
                    let stop = stopOfWholeRows(scan, after: lastRow)
                    let position = stop.map { "after row \($0)" } ?? "at its first row"
                    warnings.add(table: scan.table, rowId: stop,
                                 Dump.scanStopOpening + "\(position): \(error.message); the table was then read from the \(salvage.rows) "
                                 + "rows that could be salvaged page by page (\(salvage.fromOrphanPages) of them from pages its b-tree "
                                 + "no longer reaches); rows on damaged or missing pages are lost")
                }
                try resume(scan, after: lastRow, on: salvage.database, row)
                return
            }
            guard hasRow else { return }
            let rowId = stmt.int64(0)
            lastRow = rowId
            guard scan.covers(rowId) else { continue }
            guard try row(stmt, rowId) else { return }
        }
    }

    /// How a warning that a scan stopped at damage opens (`isScanStop` recognises it).
    static let scanStopOpening = "reading stopped "

    /// Whether `warning` says a scan of its table stopped at damage (salvaged or not).
    package static func isScanStop(_ warning: DumpWarning) -> Bool { warning.message.hasPrefix(scanStopOpening) }

    /// Where a read of whole rows stops at the damage `scan` met after `lastRow`: the last row
    /// before it, in scan order. The damage warning states this, whichever read met it first: a
    /// filtered scan (the secrets' scan of the `config` lines, replay's fix lines) has read only its
    /// own rows, so its last one is not where the table stops, and a warning placing the stop
    /// there told another story than the full read of the same table. A scan without filters
    /// that reads every column stops at the same row (the first step here fails: a step computes
    /// every selected column, overflow pages included); rows are read only on damage, from
    /// `lastRow` on.
    func stopOfWholeRows(_ scan: RowScan, after lastRow: Int64?) -> Int64? {
        guard let idColumn = scan.idColumn else { return lastRow }
        var whole = RowScan(columns: "\(idColumn), *", table: scan.table, descending: scan.descending, idColumn: idColumn)
        whole.rows = scan.rows
        whole.startsAfter = lastRow
        let (sql, bindings) = whole.sql(resumingAt: nil)
        guard let stmt = try? database.prepare(sql), (try? stmt.bind(bindings)) != nil else { return lastRow }
        var stop = lastRow
        while true {
            // An error is the damage; the end of the rows means whole rows read past it (never
            // seen: a whole read asks for every page the scan did), and the scan's own row stands.
            guard let hasRow = try? stmt.step() else { return stop }
            guard hasRow else { return lastRow }
            let rowId = stmt.int64(0)
            // Ids come in order from an intact b-tree; one that does not is a garbled page.
            if let stop, !scan.isBefore(stop, rowId) { return stop }
            stop = rowId
        }
    }

    /// The rest of `scan`, after `lastRow`, on the salvaged copy of the table.
    private func resume(_ scan: RowScan, after lastRow: Int64?, on side: Database,
                        _ row: (Statement, Int64) throws -> Bool) rethrows {
        var resumed = scan
        if let lastRow, let idColumn = scan.idColumn {
            resumed.conditions.append(scan.descending ? "\(idColumn) < ?" : "\(idColumn) > ?")
            resumed.bindings.append(.integer(lastRow))
        }
        let (sql, bindings) = resumed.sql(resumingAt: nil)
        guard let stmt = try? side.prepare(sql), (try? stmt.bind(bindings)) != nil else { return }
        while (try? stmt.step()) == true {
            let rowId = stmt.int64(0)
            guard scan.covers(rowId) else { continue }
            guard try row(stmt, rowId) else { return }
        }
    }

    /// The salvaged copy of `table` (made once per connection), nil when it cannot be made.
    func salvaged(_ table: String) -> SalvagedTable? {
        if let known = salvagedTables[table] { return known }
        let made = SalvagedTable.make(self, table: table)
        salvagedTables[table] = .some(made)
        return made
    }

    /// The probing scan `SalvagedTable` uses to collect the rows a damaged b-tree still reaches
    /// (silently: the salvage's own warning tells the story). When a page cannot be read, it
    /// finds the next row id whose page can be reached — seeks with growing steps, then a binary
    /// search — and goes on from there; a row reached but unreadable (a missing overflow page) is
    /// stepped over alone.
    func scanReachableRows(_ scan: RowScan, _ row: (Statement, Int64) throws -> Bool) rethrows {
        var resumeAt: Int64?
        var stretches = 0
        while true {
            let stmt: Statement
            do {
                let (sql, bindings) = scan.sql(resumingAt: resumeAt)
                stmt = try database.prepare(sql)
                try stmt.bind(bindings)
            } catch {
                return
            }
            var lastRow: Int64?
            var failed = false
            while true {
                let hasRow: Bool
                do { hasRow = try stmt.step() } catch {
                    failed = true
                    break
                }
                guard hasRow else { return }
                let rowId = stmt.int64(0)
                // Ids come in order from an intact b-tree; one that does not is a garbled page.
                let outOfOrder = lastRow.map { !scan.isBefore($0, rowId) } ?? resumeAt.map { scan.isBefore(rowId, $0) } ?? false
                if outOfOrder {
                    failed = true
                    break
                }
                lastRow = rowId
                guard try row(stmt, rowId) else { return }
            }
            guard failed else { return }
            stretches += 1
            guard stretches <= Dump.maxSkippedStretches else { return }
            // The row a resumed read failed on (reached, but unreadable) is stepped over alone.
            let origin = lastRow ?? resumeAt
            guard let next = nextReadableRow(scan, after: origin) else { return }
            resumeAt = next
        }
    }

    /// The first row id past `after` (in scan order) from which the table can be read again, or
    /// nil when there is none (the rest of the table is unreachable, or there are no more rows).
    private func nextReadableRow(_ scan: RowScan, after: Int64?) -> Int64? {
        // probe(id): the first row at or past `id` can be reached (or there is none): .row / .end.
        enum Probe { case row(Int64), end, damaged }
        let sql = "SELECT id FROM \(quoteIdentifier(scan.table)) WHERE id \(scan.descending ? "<=" : ">=") ? ORDER BY id \(scan.descending ? "DESC" : "ASC") LIMIT 1"
        guard let stmt = try? database.prepare(sql) else { return nil }
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
        guard var best = found else { return nil }
        // Binary search between the last damaged probe and the first good one.
        var low = failing
        while best.distance > low + 1 {
            let mid = low + (best.distance - low) / 2
            guard let id = candidate(mid) else { break }
            let result = probe(id)
            if case .damaged = result { low = mid } else { best = (mid, result) }
        }
        guard case .row(let next) = best.probe else { return nil }
        return next
    }
}
