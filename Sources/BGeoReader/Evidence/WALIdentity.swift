import Foundation
import BGeoSQLite

/// The semantic half of the foreign-WAL check (`WALCheck` is the page half). A WAL may hold every
/// page of a database — then its pages fit any main file, and a WAL from another phone would
/// replace the dump's rows silently. But a row once written keeps its id and its content: the
/// queue and log tables use AUTOINCREMENT ids (never reused), records are never rewritten, log
/// rows only ever gain `uploaded = 1`. So the newest row of each table in the main file alone
/// must, with the WAL applied, be either gone (uploaded, pruned) or the same row; and each
/// AUTOINCREMENT counter may only have grown. A WAL that breaks either belongs to another database.
struct WALIdentity {
    /// Per table: the newest row id in the main file and the columns that never change.
    struct Row: Equatable {
        let table: String
        let id: Int64
        let values: [SQLValue]
    }

    let rows: [Row]
    /// `sqlite_sequence` as the main file alone has it.
    let sequences: [String: Int64]

    /// The columns of each known table that a later transaction never changes.
    static let stableColumns: [String: [String]] = [
        "location_events": ["uuid", "timestamp", "json", "data", "created_at"],
        "log_entries": ["ts", "level", "src", "event", "message", "data"],
        "queue": ["uuid", "created_at", "payload"],
    ]

    /// Reads the main file alone, through a second name of the private copy (`main-only.db`, a
    /// hard link: no bytes copied), so SQLite cannot see the WAL. Nil when it cannot be read.
    static func readMainAlone(copyPath: String) -> WALIdentity? {
        let folder = (copyPath as NSString).deletingLastPathComponent
        let alone = folder + "/" + PrivateFolder.mainOnlyName
        defer { for suffix in ["", "-wal", "-shm"] { _ = unlink(alone + suffix) } }
        guard link(copyPath, alone) == 0, let db = try? Database(path: alone, mode: .readWriteCreate) else { return nil }
        try? db.execute("PRAGMA query_only = 1")
        return read(db)
    }

    /// The same facts from `db` (for the main file alone, the anchors; for main + WAL, ignored).
    private static func read(_ db: Database) -> WALIdentity {
        var rows: [Row] = []
        for (table, wanted) in stableColumns {
            guard let columns = presentColumns(db, table: table, wanted: wanted), !columns.isEmpty,
                  let stmt = try? db.prepare("SELECT id, \(columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(table)) ORDER BY id DESC LIMIT 1"),
                  (try? stmt.step()) == true else { continue }
            rows.append(Row(table: table, id: stmt.int64(0), values: (1...columns.count).map { stmt.value($0) }))
        }
        return WALIdentity(rows: rows, sequences: sequences(db))
    }

    private static func presentColumns(_ db: Database, table: String, wanted: [String]) -> [String]? {
        guard let stmt = try? db.prepare("PRAGMA table_info(\(quoteIdentifier(table)))") else { return nil }
        var names: Set<String> = []
        while (try? stmt.step()) == true { names.insert(stmt.text(1) ?? "") }
        guard names.contains("id") else { return nil }
        return wanted.filter(names.contains)
    }

    private static func sequences(_ db: Database) -> [String: Int64] {
        var out: [String: Int64] = [:]
        guard let stmt = try? db.prepare("SELECT name, seq FROM sqlite_sequence") else { return out }
        while (try? stmt.step()) == true { out[stmt.text(0) ?? ""] = stmt.int64(1) }
        return out
    }

    /// Why `combined` (main + WAL) cannot be this main file's future, or nil when it can.
    func mismatch(in combined: Database) -> String? {
        for row in rows {
            guard let columns = WALIdentity.presentColumns(combined, table: row.table, wanted: WALIdentity.stableColumns[row.table] ?? []),
                  columns.count == row.values.count,
                  let stmt = try? combined.prepare("SELECT \(columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(row.table)) WHERE id = ?"),
                  (try? stmt.bind([.integer(row.id)])) != nil else { continue }
            guard let found = try? stmt.step() else { continue }
            if found, (0..<columns.count).map({ stmt.value($0) }) != row.values {
                return "with it applied, \(row.table) row \(row.id) is another row than in the main file, so it belongs to another database"
            }
        }
        let later = WALIdentity.sequences(combined)
        for (table, seq) in sequences.sorted(by: { $0.key < $1.key }) {
            if let now = later[table], now < seq {
                return "with it applied, the id counter of \(table) goes back from \(seq) to \(now), so it belongs to another database"
            }
        }
        return nil
    }
}
