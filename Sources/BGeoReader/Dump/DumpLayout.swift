/// Which engine wrote a dump.
public enum DumpFormat: String, Sendable {
    case bgeo
    case longping
}

/// What the schema of one dump looks like: detected from `sqlite_master`, never assumed.
public struct DumpLayout: Sendable, Equatable {
    public var format: DumpFormat
    /// `state.schema_version` when present (3 for current BGeo); nil when the dump has no state.
    public var schemaVersion: Int?
    /// True for BGeo schema 1–2: record column `data`, no `kind`, maybe no `state`.
    public var isLegacy: Bool
    /// The queue table: `location_events` (BGeo) or `queue` (LongPing); nil when missing.
    public var queueTable: String?
    /// The record JSON column: `json`, `data` (legacy) or `payload` (LongPing).
    public var recordColumn: String
    /// Columns present in the queue table.
    public var queueColumns: [String]
    public var hasLog: Bool
    public var hasState: Bool
    /// Every table in the file.
    public var tables: [String]

    /// Records carry a `kind` column (current BGeo); legacy records are told apart by their JSON.
    /// How each read selects the queue's columns is `QueueColumns`.
    public var hasKindColumn: Bool { queueColumns.contains("kind") }

    /// A short human name: "BGeo schema 3", "BGeo legacy schema (1–2)", "LongPing queue".
    public var displayName: String {
        switch format {
        case .longping: return "LongPing queue"
        case .bgeo:
            if isLegacy { return "BGeo legacy schema" + (schemaVersion.map { " \($0)" } ?? " (1–2)") }
            return "BGeo schema " + (schemaVersion.map(String.init) ?? "unknown")
        }
    }
}
