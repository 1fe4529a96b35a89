import BGeoReader

/// What the timeline takes of one log row, decoded from its cells: by its own pass, which
/// handles it at once, or by a part of a piped read (`TimelineBuilder+PipedLog`), which hands it
/// over to be handled in row order. One decoder, so the two paths cannot disagree.
enum TimelineLogItem: Sendable {
    /// A `location` line: the fix it states, as the coverage takes it.
    case location(LoggedRow, CoverageMap.Edge)
    /// A `queue.insert` line: counted only.
    case queueInsert(LoggedRow)
    /// An `http.request`, `http.response` or `http.backoff` row.
    case upload(UploadRowKind, LoggedRow, UploadRowFields)
    /// A `queue.drop` row: its uuids counted, a few kept (a drop may name a million: read from
    /// the cells, the row is not also copied into an entry's text).
    case drop(LoggedRow, DropRowFields)
    /// A frequent engine row.
    case engine(EngineRowKind, LoggedRow, EngineRowFields)
    /// Any other row, built.
    case entry(LogEntry)

    /// Which rows are read from their cells (the others are built into entries).
    struct Reading: Sendable {
        /// `location` lines, and `queue.insert` lines too when `queueInserts`.
        var locations = true
        var queueInserts = true
        /// The engine rows read from their cells.
        var engines = EngineRowKinds.all
        /// `queue.drop` rows.
        var drops = true
        /// How many uuids an upload row's fields keep.
        var uuidsRead: Int
    }

    /// The item of a row the timeline reads from its cells; nil for a row `reading` leaves to an
    /// entry. The data of an upload or engine row is checked by its field scan (a row that is not
    /// an object is checked into `warnings`); that of a `location` or `queue.insert` line is left
    /// to the caller (`isLine`).
    init?(_ row: LogRowView, _ reading: Reading, lines: inout LocationLineFolder, warnings: WarningLog) {
        switch TimelineRowEvent(row) {
        case .location where reading.locations:
            self = .location(LoggedRow(row), row.withData { lines.edge(lineTime: row.time, rowId: row.rowId, data: $0) })
        case .queueInsert where reading.locations && reading.queueInserts:
            self = .queueInsert(LoggedRow(row))
        case .upload(let kind):
            let fields = row.withData { UploadRowFields(data: $0, uuidLimit: reading.uuidsRead) }
            // The field scan checked an object; anything else is checked as the read would.
            if !fields.isObject { row.checkData(warnings) }
            self = .upload(kind, LoggedRow(row), fields)
        case .drop where reading.drops:
            let fields = row.withData { DropRowFields(data: $0, kept: Evidence.defaultLimit) }
            if !fields.isObject { row.checkData(warnings) }
            self = .drop(LoggedRow(row), fields)
        case .engine(let kind) where reading.engines.contains(kind):
            let fields = row.withData { EngineRowFields(kind, data: $0) }
            if !fields.isObject { row.checkData(warnings) }
            self = .engine(kind, LoggedRow(row), fields)
        default:
            return nil
        }
    }

    /// A `location` or `queue.insert` line, whose data no field scan checked.
    var isLine: Bool {
        switch self {
        case .location, .queueInsert: return true
        default: return false
        }
    }

    /// About how many bytes of text the item keeps (a piped read's batches are weighed by it).
    var keptBytes: Int {
        switch self {
        case .location, .queueInsert, .engine: return 0
        case .upload(_, _, let fields): return fields.uuids.reduce(0) { $0 + $1.utf8.count } + (fields.response?.utf8.count ?? 0)
        case .drop(_, let fields):
            return fields.uuids.reduce(0) { $0 + $1.utf8.count } + fields.distinctUUIDs.reduce(0) { $0 + $1.utf8.count }
        case .entry(let entry):
            return entry.tsText.utf8.count + entry.src.utf8.count + entry.event.utf8.count
                + (entry.message?.utf8.count ?? 0) + (entry.dataText?.utf8.count ?? 0)
        }
    }
}
