import BGeoForensics
/// What a simulation wrote: the counts a test or a support engineer checks the dump against.
public struct SimulationSummary: Sendable, Equatable {
    public var scenario: String
    public var seed: UInt64
    /// Files written (the db, plus the -wal for WAL dumps).
    public var files: [String] = []
    /// Raw fixes the simulated device produced.
    public var fixes = 0
    /// Fixes the engine accepted (queued and logged).
    public var acceptedFixes = 0
    /// Fixes the engine's filter rejected (`filter.reject` lines).
    public var rejectedFixes = 0
    /// Rows left in the queue table at dump time (pending records, damaged rows included).
    public var queueRecords = 0
    /// Geofence records written (uploaded or pending).
    public var geofences = 0
    /// Rows in log_entries.
    public var logRows = 0
    /// Records the server accepted (2xx).
    public var uploaded = 0
    /// Location upload requests sent.
    public var requests = 0
    /// uuids dropped as poison (`queue.drop`).
    public var poisonUUIDs: [String] = []
    /// Teleport fixes planted (each tens to hundreds of km off the route).
    public var plantedTeleports = 0
    /// Fixes planted with accuracy 150–500 m.
    public var plantedLowAccuracy = 0
    /// The odometer the engine recorded at the end (metres).
    public var recordedOdometer: Double?
    /// Length of the route actually driven (metres), where the scenario knows it.
    public var routeLength: Double?
    /// Records evicted by maxRecordsToPersist (`queue.prune`).
    public var prunedRecords = 0
    /// `http.failures` at dump time.
    public var httpFailures = 0
    /// Queue/log row ids that should each produce a reader warning (damaged-rows).
    public var damagedQueueRowIds: [Int64] = []
    public var damagedLogRowIds: [Int64] = []
    /// Rows with ids above these exist only in the -wal (wal-mode).
    public var walOnlyQueueRowsAfterId: Int64?
    public var walOnlyLogRowsAfterId: Int64?
    /// LongPing: queue rows with attempts > 0.
    public var recordsWithAttempts = 0

    public init(scenario: String, seed: UInt64) {
        self.scenario = scenario
        self.seed = seed
    }

    public var json: JSONValue {
        var o: JSONObject = [
            "scenario": .string(scenario), "seed": .int(Int64(bitPattern: seed)),
            "files": .array(files.map { .string($0) }),
            "fixes": .from(fixes), "accepted_fixes": .from(acceptedFixes), "rejected_fixes": .from(rejectedFixes),
            "queue_records": .from(queueRecords), "geofences": .from(geofences), "log_rows": .from(logRows),
            "uploaded": .from(uploaded), "requests": .from(requests),
            "poison_uuids": .array(poisonUUIDs.map { .string($0) }),
            "planted_teleports": .from(plantedTeleports), "planted_low_accuracy": .from(plantedLowAccuracy),
            "recorded_odometer_m": .from(recordedOdometer), "route_length_m": .from(routeLength.map { GeoMath.round($0, 1) }),
            "http_failures": .from(httpFailures), "pruned_records": .from(prunedRecords),
            "damaged_queue_row_ids": .array(damagedQueueRowIds.map { .int($0) }),
            "damaged_log_row_ids": .array(damagedLogRowIds.map { .int($0) }),
        ]
        o["wal_only_queue_rows_after_id"] = walOnlyQueueRowsAfterId.map { .int($0) } ?? .null
        o["wal_only_log_rows_after_id"] = walOnlyLogRowsAfterId.map { .int($0) } ?? .null
        o["records_with_attempts"] = .from(recordsWithAttempts)
        return .object(o)
    }

    /// A short human-readable report.
    public var text: String {
        var lines = ["Scenario \(scenario) (seed \(seed))", "  files: \(files.joined(separator: ", "))"]
        lines.append("  fixes: \(fixes) (accepted \(acceptedFixes), rejected \(rejectedFixes)); geofences: \(geofences)")
        lines.append("  queue rows left: \(queueRecords); log rows: \(logRows)")
        lines.append("  uploads: \(requests) requests, \(uploaded) records accepted; http.failures at dump: \(httpFailures)")
        if prunedRecords > 0 { lines.append("  pruned (maxRecordsToPersist): \(prunedRecords)") }
        if !poisonUUIDs.isEmpty { lines.append("  poison uuids dropped: \(poisonUUIDs.joined(separator: ", "))") }
        if plantedTeleports > 0 || plantedLowAccuracy > 0 {
            lines.append("  planted: \(plantedTeleports) teleports, \(plantedLowAccuracy) fixes with accuracy 150–500 m")
        }
        if let recordedOdometer { lines.append("  recorded odometer: \(recordedOdometer) m") }
        if let routeLength { lines.append("  route driven: \(GeoMath.round(routeLength, 1)) m") }
        if !damagedQueueRowIds.isEmpty {
            lines.append("  damaged queue row ids: \(damagedQueueRowIds.map(String.init).joined(separator: ", "))")
        }
        if !damagedLogRowIds.isEmpty { lines.append("  damaged log row ids: \(damagedLogRowIds.map(String.init).joined(separator: ", "))") }
        if let id = walOnlyQueueRowsAfterId { lines.append("  queue rows with id > \(id) exist only in the -wal") }
        if let id = walOnlyLogRowsAfterId { lines.append("  log rows with id > \(id) exist only in the -wal") }
        if recordsWithAttempts > 0 { lines.append("  records with attempts > 0: \(recordsWithAttempts)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
