import BGeoForensics
import BGeoSQLite
/// One table of the dump as the copy needs it: its definition, the columns to copy (generated
/// and hidden columns are computed, not stored) and how its rows are addressed.
struct SourceTable: Sendable {
    let name: String
    /// The `CREATE TABLE` statement as the dump stores it.
    let sql: String
    let columns: [String]
    /// Columns declared NOT NULL (a dropped value becomes "" there).
    let notNull: [Bool]
    /// The index of the column that is the rowid (`INTEGER PRIMARY KEY`), if any: copying it
    /// keeps the row id.
    let rowidAlias: Int?
    let withoutRowid: Bool

    var hasRowidAlias: Bool { rowidAlias != nil }

    /// Rows in storage order, the row id first (scans warn by it).
    var scan: RowScan {
        let list = columns.map(quoteIdentifier).joined(separator: ", ")
        if withoutRowid { return RowScan(columns: "0, \(list)", table: name, idColumn: nil) }
        return RowScan(columns: "rowid, \(list)", table: name, idColumn: "rowid")
    }

    /// Inserts one row; a table without a rowid alias gets its rowid explicitly, so that every
    /// `ORDER BY rowid` reads the copy in the original's order.
    var insertSQL: String {
        let explicitRowid = !withoutRowid && !hasRowidAlias
        let names = (explicitRowid ? ["rowid"] : []) + columns.map(quoteIdentifier)
        return "INSERT INTO \(quoteIdentifier(name)) (\(names.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
    }

    var insertsRowid: Bool { !withoutRowid && !hasRowidAlias }

    /// The row id of a row as `insertSQL` takes it (nil in a WITHOUT ROWID table).
    func rowId(of insertCells: ArraySlice<PackedRows.Cell>) -> Int64? {
        guard let offset = insertsRowid ? 0 : rowidAlias, offset < insertCells.count,
              case .integer(let id) = insertCells[insertCells.startIndex + offset] else { return nil }
        return id
    }
}

/// The dump's schema: tables to create before the rows, and the indexes, triggers and views to
/// create after them (a trigger must not fire on the copy's inserts).
struct SourceSchema: Sendable {
    var tables: [SourceTable] = []
    var afterRows: [String] = []
    /// Tables that cannot be copied row by row (virtual tables), named in the report.
    var skipped: [String] = []
    /// `sqlite_sequence` (AUTOINCREMENT counters): kept, they say how many rows were ever queued.
    var sequence: [(name: String, seq: Int64)] = []
    var pageSize = 4096

    /// The dump's `state` table (SQLite names are case-insensitive), if it has one.
    var stateTable: SourceTable? { tables.first { $0.name.lowercased() == "state" } }

    /// Why the copy's `state` cannot take the sanitisation marker (nil: it can, or is created).
    var markerProblem: String? {
        guard let state = stateTable else { return nil }
        let columns = Set(state.columns.map { $0.lowercased() })
        guard !(columns.contains("key") && columns.contains("value")) else { return nil }
        return "has no key and value columns (it has \(state.columns.map { "'\($0)'" }.joined(separator: ", ")))"
    }
    var userVersion: Int64 = 0
    var applicationId: Int64 = 0

    static func read(_ database: Database) throws(SQLiteError) -> SourceSchema {
        var schema = SourceSchema()
        let master = try database.prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        var tables: [(name: String, sql: String)] = []
        while try master.step() {
            let type = master.text(0) ?? "", name = master.text(1) ?? "", sql = master.text(2) ?? ""
            if name.hasPrefix("sqlite_") { continue }
            switch type {
            case "table":
                if sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") { schema.skipped.append(name) } else { tables.append((name, sql)) }
            default:
                schema.afterRows.append(sql)
            }
        }
        for table in tables {
            let info = try database.prepare("PRAGMA table_xinfo(\(quoteIdentifier(table.name)))")
            var columns: [String] = []
            var notNull: [Bool] = []
            var keys: [(index: Int, type: String)] = []
            while try info.step() {
                guard info.int(6) == 0 else { continue }  // hidden or generated
                if info.int(5) > 0 { keys.append((columns.count, (info.text(2) ?? "").uppercased())) }
                columns.append(info.text(1) ?? "")
                notNull.append(info.int(3) != 0)
            }
            let withoutRowid = table.sql.uppercased().replacingOccurrences(of: " ", with: "").hasSuffix("WITHOUTROWID")
            schema.tables.append(SourceTable(name: table.name, sql: table.sql, columns: columns, notNull: notNull,
                                             rowidAlias: !withoutRowid && keys.count == 1 && keys[0].type == "INTEGER" ? keys[0].index : nil,
                                             withoutRowid: withoutRowid))
        }
        if let stmt = try? database.prepare("SELECT name, seq FROM sqlite_sequence") {
            while (try? stmt.step()) == true { schema.sequence.append((stmt.text(0) ?? "", stmt.int64(1))) }
        }
        schema.pageSize = Int(try pragma("page_size", database))
        schema.userVersion = try pragma("user_version", database)
        schema.applicationId = try pragma("application_id", database)
        return schema
    }

    private static func pragma(_ name: String, _ database: Database) throws(SQLiteError) -> Int64 {
        let stmt = try database.prepare("PRAGMA \(name)")
        return try stmt.step() ? stmt.int64(0) : 0
    }
}
