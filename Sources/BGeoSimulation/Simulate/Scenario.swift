import BGeoForensics
/// The named situations `simulate` can write, each a realistic dump a support engineer meets.
public enum Scenario: String, CaseIterable, Sendable {
    case healthyDay = "healthy-day"
    case strandedRefresh = "stranded-refresh"
    case poisonBatch = "poison-batch"
    case teleports
    case processKill = "process-kill"
    case walMode = "wal-mode"
    case legacySchema = "legacy-schema"
    case longping
    case damagedRows = "damaged-rows"

    /// One line for `simulate --list` and Samples/README.md.
    public var summary: String {
        switch self {
        case .healthyDay:
            return "A day of driving and stops: batched uploads all 2xx, geofences at home/depot, a few records left queued."
        case .strandedRefresh:
            return "Access token expires, refresh keeps failing (400/401): backoff pinned at 300 s, hundreds of records stranded."
        case .poisonBatch:
            return "batchSync (25): one record gets 422 inside a batch, the batch is split, only that uuid dropped; 429 and offline episodes retried on schedule."
        case .teleports:
            return "A ~195 km drive recorded with disableLocationFilter: planted teleports and 150–500 m fixes inflate the odometer."
        case .processKill:
            return "The OS kills the app while stationary: ~40 min tracking gap, then session.relaunch via a region-exit wake and headless dispatches."
        case .walMode:
            return "WAL journal: the newest records, log rows and state exist only in bgeo.db-wal (ship both files)."
        case .legacySchema:
            return "An old SDK build (schema 2): record column `data`, no `kind`, no state table; config only in the log."
        case .longping:
            return "A LongPing dump: one `queue` table with `attempts`, some records already tried once or twice."
        case .damagedRows:
            return "A damaged dump: unparseable JSON, NaN/out-of-range/missing coords, bad timestamps, a bad log row and state key."
        }
    }
}
