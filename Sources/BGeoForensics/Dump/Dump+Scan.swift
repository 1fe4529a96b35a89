extension Dump {
    /// Steps through the rows of `sql` (whose first column is the row id), calling `row` for each
    /// until it returns false. A statement that cannot run, or a damaged page hit mid-scan,
    /// becomes a located warning on `table` instead of an error: what was read stays read.
    func scanRows(_ sql: String, bindings: [SQLValue] = [], table: String,
                  _ row: (Statement, Int64) throws -> Bool) rethrows {
        let stmt: Statement
        do {
            stmt = try database.prepare(sql)
            try stmt.bind(bindings)
        } catch {
            warnScanFailure(error, table: table, afterRow: nil)
            return
        }
        var lastRow: Int64?
        while true {
            let hasRow: Bool
            do { hasRow = try stmt.step() } catch {
                warnScanFailure(error, table: table, afterRow: lastRow)
                return
            }
            guard hasRow else { return }
            let rowId = stmt.int64(0)
            lastRow = rowId
            guard try row(stmt, rowId) else { return }
        }
    }
}
