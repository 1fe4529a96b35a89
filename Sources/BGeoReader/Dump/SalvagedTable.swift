import Foundation
import Synchronization
import BGeoSQLite

/// A table read as far as it can be, once a scan of it has met a damaged or missing page: every
/// row its b-tree still reaches (stepping over the damaged stretches), plus — as SQLite's
/// recovery does with its "lost and found" — the rows of leaf pages no b-tree reaches any more
/// (their parent page is gone), told apart from the other tables by their column count. The rows
/// go into a side database in the private folder with the table's own name and columns, so the
/// interrupted scan goes on there with its own SQL (filters, order, limits unchanged).
final class SalvagedTable {
    let database: Database
    let rows: Int
    /// Whether a warning has told the user (once per table and connection).
    var announced = false
    /// Rows that came from leaf pages no b-tree reaches.
    let fromOrphanPages: Int

    private init(database: Database, rows: Int, fromOrphanPages: Int) {
        self.database = database
        self.rows = rows
        self.fromOrphanPages = fromOrphanPages
    }

    /// Side databases per process (each a fixed name, so the signal handler knows it).
    static let slots = 16
    private static let nextSlot = Mutex(0)

    static func fileName(_ slot: Int) -> String { "salvage-\(slot).db" }

    /// Salvages `table` of `dump`; nil when it has no INTEGER PRIMARY KEY `id` to order by.
    static func make(_ dump: Dump, table: String) -> SalvagedTable? {
        guard let columns = tableColumns(dump.database, table), columns.first(where: { $0.name == "id" })?.isRowid == true else { return nil }
        let slot = nextSlot.withLock { next in
            defer { next += 1 }
            return next
        }
        let path = slot < slots ? dump.privateFolder + "/" + fileName(slot) : ":memory:"
        guard let side = try? Database(path: path, mode: .readWriteCreate) else { return nil }
        let definitions = columns.map { column in
            column.name == "id" ? "id INTEGER PRIMARY KEY" : quoteIdentifier(column.name) + " " + (column.type.isEmpty ? "" : column.type)
        }
        let names = columns.map { quoteIdentifier($0.name) }
        guard (try? side.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE TABLE \(quoteIdentifier(table)) (\(definitions.joined(separator: ", ")))")) != nil,
              let insert = try? side.prepare("INSERT OR IGNORE INTO \(quoteIdentifier(table)) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))")
        else { return nil }
        var count = 0
        try? side.execute("BEGIN")
        // 1. Every row the b-tree still reaches.
        dump.scanReachableRows(RowScan(columns: names.joined(separator: ", "), table: table)) { stmt, _ in
            if (try? insert.run((0..<columns.count).map { stmt.value($0) })) != nil { count += 1 }
            return true
        }
        // 2. Rows of leaf pages no b-tree reaches.
        var orphans = 0
        for row in orphanRows(dump, table: table, columnCount: columns.count) {
            var values = row.values
            if let idIndex = columns.firstIndex(where: { $0.name == "id" }), idIndex < values.count { values[idIndex] = .integer(row.rowid) }
            try? insert.run(values)
            if side.changes > 0 { orphans += 1; count += 1 }
        }
        try? side.execute("COMMIT")
        return SalvagedTable(database: side, rows: count, fromOrphanPages: orphans)
    }

    struct Column { let name: String; let type: String; let isRowid: Bool }

    static func tableColumns(_ db: Database, _ table: String) -> [Column]? {
        guard let stmt = try? db.prepare("PRAGMA table_info(\(quoteIdentifier(table)))") else { return nil }
        var columns: [Column] = []
        while (try? stmt.step()) == true {
            let type = stmt.text(2) ?? ""
            columns.append(Column(name: stmt.text(1) ?? "", type: type, isRowid: stmt.int(5) == 1 && type.uppercased() == "INTEGER"))
        }
        return columns.isEmpty ? nil : columns
    }

    /// Leaf pages of the main file that no b-tree reaches (per `dbstat`) and the freelist does not
    /// hold, whose records have `columnCount` fields — and no other table has that many columns,
    /// so they cannot be another table's. Only without a WAL: its pages would supersede these.
    static func orphanRows(_ dump: Dump, table: String, columnCount: Int) -> [(rowid: Int64, values: [SQLValue])] {
        let copy = dump.privateCopy.copyPath
        guard !EvidenceFile.exists(copy + "-wal") || (try? EvidenceCopy.size(of: copy + "-wal")) == 0 else { return [] }
        var sameShape = 0
        for other in dump.layout.tables where !other.hasPrefix("sqlite_") {
            if tableColumns(dump.database, other)?.count == columnCount { sameShape += 1 }
        }
        guard sameShape == 1, let used = usedPages(dump.database) else { return [] }
        let fd = open(copy, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, let header = try? DatabaseHeader(copyPath: copy, originalPath: dump.path) else { return [] }
        let pageSize = header.pageSize
        let usable = pageSize - Int(header.firstPage[20])
        let pages = UInt32(clamping: Int64(info.st_size) / Int64(pageSize))
        func page(_ number: UInt32) -> [UInt8]? {
            guard number >= 1, number <= pages else { return nil }
            var buffer = [UInt8](repeating: 0, count: pageSize)
            return WALCheck.read(fd, &buffer, Int64(number - 1) * Int64(pageSize), pageSize) ? buffer : nil
        }
        let free = freelistPages(header: header, page: page, pages: pages)
        var rows: [(rowid: Int64, values: [SQLValue])] = []
        var number: UInt32 = 2
        while number <= pages {
            defer { number += 1 }
            guard !used.contains(number), !free.contains(number), let bytes = page(number) else { continue }
            let node = BTreePage(bytes, number: number)
            guard node.type == 13 else { continue }
            rows += node.tableLeafRows(usableSize: usable, page: page).filter { $0.values.count == columnCount }
        }
        return rows
    }

    /// Every page some b-tree reaches, per SQLite's `dbstat` (nil when it cannot say).
    static func usedPages(_ db: Database) -> Set<UInt32>? {
        guard let stmt = try? db.prepare("SELECT pageno FROM dbstat WHERE pagetype != 'corrupted'") else { return nil }
        var used: Set<UInt32> = [1]
        while true {
            guard let more = try? stmt.step() else { return used }
            guard more else { return used }
            used.insert(UInt32(clamping: stmt.int64(0)))
        }
    }

    /// The freelist's trunk and leaf pages (a damaged freelist is followed as far as it makes sense).
    static func freelistPages(header: DatabaseHeader, page: (UInt32) -> [UInt8]?, pages: UInt32) -> Set<UInt32> {
        var free: Set<UInt32> = []
        var trunk = DatabaseHeader.read32(header.firstPage, 32)
        while trunk != 0, trunk <= pages, !free.contains(trunk), let bytes = page(trunk) {
            free.insert(trunk)
            let count = min(Int(DatabaseHeader.read32(bytes, 4)), (bytes.count - 8) / 4)
            for i in 0..<max(0, count) { free.insert(DatabaseHeader.read32(bytes, 8 + 4 * i)) }
            trunk = DatabaseHeader.read32(bytes, 0)
        }
        return free
    }
}
