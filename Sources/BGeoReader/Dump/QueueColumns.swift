/// The one map from a dump's layout to its queue table's columns. Every queue read selects
/// them in the same order, whatever engine wrote the dump (BGeo `json`, legacy `data`, LongPing
/// `payload`; `kind`, `timestamp`, `created_at`, `attempts` where the schema has them): a column
/// the layout lacks is read as NULL, so each field sits at the same index in every read.
package struct QueueColumns: Sendable, Equatable {
    // Where each field sits in a row read through `selectList` (or `timingList`, its first four).
    package static let rowId = 0, uuid = 1, timestamp = 2, kind = 3, createdAt = 4, record = 5, attempts = 6

    /// The `SELECT` list of a full read: every field at its index.
    let selectList: String
    /// The first four columns only (id, uuid, timestamp, kind): when each record was queued,
    /// without the record's JSON, which is most of a row's bytes and often on overflow pages.
    let timingList: String
    /// The queue has its own `uuid` column (records are looked up through its index).
    let hasUUID: Bool
    /// The queue has `uuid` and `timestamp` columns, so `timingList` places every record in time
    /// (LongPing's queue has no `timestamp`: its records must be read whole).
    package let hasTiming: Bool

    init(_ layout: DumpLayout) {
        func column(_ name: String) -> String { layout.queueColumns.contains(name) ? name : "NULL" }
        let timing = "id, \(column("uuid")), \(column("timestamp")), \(column("kind"))"
        timingList = timing
        selectList = timing + ", \(column("created_at")), \(quoteIdentifier(layout.recordColumn)), \(column("attempts"))"
        hasUUID = layout.queueColumns.contains("uuid")
        hasTiming = hasUUID && layout.queueColumns.contains("timestamp")
    }
}

extension DumpLayout {
    /// This layout's queue columns, as every queue read selects them.
    package var queueSelection: QueueColumns { QueueColumns(self) }
}

/// The log table's columns (the same in every layout), in the order every log read selects them.
package enum LogColumns {
    package static let rowId = 0, ts = 1, level = 2, src = 3, event = 4, message = 5, data = 6, uploaded = 7
    static let selectList = "id, ts, level, src, event, message, data, uploaded"
}
