import BGeoForensics
import BGeoSQLite
/// The database the sanitised rows are written into, beside the output: same tables (same
/// definitions), same page size, user_version and application_id as the dump; no journal (it is
/// rebuilt from scratch on failure anyway). It never holds a secret — every cell is sanitised
/// before it is inserted — and it is compacted into the output with `VACUUM INTO`, which writes a
/// fresh file with no free pages and no journal, then deleted.
final class WorkingDatabase {
    let database: Database
    private var inserts: [String: Statement] = [:]

    init(path: String, schema: SourceSchema, createState: Bool, definition: (String) -> String) throws(SQLiteError) {
        database = try Database(path: path, mode: .readWriteCreate)
        let pageSize = (9...16).map { 1 << $0 }.contains(schema.pageSize) ? schema.pageSize : 4096
        try database.execute("""
            PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
            PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -16384;
            PRAGMA user_version = \(schema.userVersion); PRAGMA application_id = \(schema.applicationId)
            """)
        for table in schema.tables { try database.execute(definition(table.sql)) }
        if createState { try database.execute("CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT)") }
        try database.execute("BEGIN")
    }

    /// Inserts one row of `table` (`rowid` first when the table needs it explicitly). Returns
    /// SQLite's refusal when the row breaks its own table's definition (a UNIQUE, NOT NULL or
    /// CHECK constraint, or a non-integer rowid): a damaged dump yields such rows (pages swapped
    /// or overwritten), or a constraint forbids a sanitised value; the copy keeps the dump's
    /// schema, so the caller leaves the row out and says so. Any other failure throws.
    func insert(row: Int, of rows: PackedRows, into table: SourceTable) throws(SQLiteError) -> SQLiteError? {
        let statement: Statement
        if let prepared = inserts[table.name] {
            statement = prepared
        } else {
            statement = try database.prepare(table.insertSQL)
            inserts[table.name] = statement
        }
        do {
            try rows.run(statement, row: row)
        } catch where error.isRowRefused {
            return error  // the next bind resets the statement
        }
        return nil
    }

    /// Stores the marker in `state`; returns SQLite's refusal when the dump's own definition of
    /// `state` refuses the row (a constraint), and throws on any other failure.
    func storeMarker(_ marker: JSONValue) throws(SQLiteError) -> SQLiteError? {
        do {
            try database.prepare("INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)")
                .run([.text(SanitizationMarker.stateKey), .text(marker.jsonText)])
        } catch where error.isRowRefused {
            return error
        }
        return nil
    }

    /// Stores the AUTOINCREMENT counters and the indexes, triggers and views, then commits.
    func finish(schema: SourceSchema, definition: (String) -> String) throws(SQLiteError) {
        if !schema.sequence.isEmpty, (try? database.prepare("SELECT 1 FROM sqlite_sequence")) != nil {
            try database.execute("DELETE FROM sqlite_sequence")
            let insert = try database.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)")
            for entry in schema.sequence { try insert.run([.text(entry.name), .integer(entry.seq)]) }
        }
        for sql in schema.afterRows { try database.execute(definition(sql)) }
        inserts.removeAll()
        try database.execute("COMMIT")
    }

    /// Writes the compact copy to `path` (which must not exist).
    func vacuum(into path: String) throws(SQLiteError) {
        try database.prepare("VACUUM INTO ?").run([.text(path)])
    }
}
