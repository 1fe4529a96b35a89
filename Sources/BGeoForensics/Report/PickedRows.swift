import BGeoReader

/// The rows a report table shows, read from the dump and each turned into what the table shows
/// of it: its first and last rows picked while the dump is read, then completed with the rows the
/// findings and the replay cite.
struct PickedRows<Row, Shown> {
    /// The ids picked, ascending.
    private(set) var ids: [Int64]
    /// The table's row count.
    let total: Int
    /// The rows read for `ids`, ascending by id (an id with no row has none), with what is shown of each.
    private(set) var rows: [(row: Row, shown: Shown)]
    private let rowId: KeyPath<Row, Int64>

    /// `rows`: read for `ids` (ascending); `show`: what the table shows of a row.
    init(ids: [Int64], total: Int, rows: [Row], rowId: KeyPath<Row, Int64>, show: (Row) -> Shown) {
        self.init(ids: ids, total: total, shown: rows.map { ($0, show($0)) }, rowId: rowId)
    }

    private init(ids: [Int64], total: Int, shown: [(row: Row, shown: Shown)], rowId: KeyPath<Row, Int64>) {
        self.ids = ids
        self.total = total
        rows = shown
        self.rowId = rowId
    }

    /// No rows (the dump has no such table).
    static func none(rowId: KeyPath<Row, Int64>) -> PickedRows {
        PickedRows(ids: [], total: 0, shown: [], rowId: rowId)
    }

    /// Adds the rows of `more` not picked yet, read by `read` (ids ascending → rows ascending),
    /// keeping every list ascending: the same rows as picking all the ids at once.
    mutating func add(ids more: Set<Int64>, from read: ([Int64]) -> [Row], show: (Row) -> Shown) {
        let missing = more.subtracting(ids).sorted()
        guard !missing.isEmpty else { return }
        ids = (ids + missing).sorted()
        let key = rowId
        rows = (rows + read(missing).map { ($0, show($0)) }).sorted { $0.row[keyPath: key] < $1.row[keyPath: key] }
    }
}
