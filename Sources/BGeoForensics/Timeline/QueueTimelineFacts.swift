import BGeoReader

/// What the timeline takes from each queued record — its time (the `timestamp` column) and uuid —
/// gathered row by row by whoever reads the queue: the timeline's own scan, or the report's
/// queue read on its second connection, which then spares the timeline a scan of its own.
struct QueueTimelineFacts: Sendable {
    private(set) var pendingRecords = 0
    private(set) var oldestPending: (time: Double, uuid: String)?
    private(set) var newestPending: Double?
    private(set) var pendingUuids = BoundedList<String>(limit: 20)
    /// Records whose time is inside the timeline's window (all of them without one).
    private(set) var recordsInWindow = 0
    /// The records' times, for the gaps (motion looked up later for the few at a gap's edge).
    private(set) var coverage: CoverageMap
    private let since: Double?
    private let until: Double?
    /// False once a row's `timestamp` did not read as a time: the timeline's own scan warns of
    /// such a row, so facts gathered without that warning are not used.
    private(set) var complete = true

    init(threshold: Double, since: Double?, until: Double?) {
        coverage = CoverageMap(threshold: threshold)
        self.since = since
        self.until = until
    }

    /// A record read from its columns (`QueueRowCells`) at `time`; its uuid is read only when it
    /// is kept. A geofence record is counted as queued but is no fix: a gap is measured between fixes only.
    /// A record whose time did not read (`time` nil) is still counted as queued.
    mutating func add(_ row: QueueRowCells, time: Double?) {
        guard let time else {
            countUnreadable()
            return
        }
        if count(time: time, uuid: { row.uuidColumn ?? "" }), !row.isGeofenceKind { coverage.add(time, moving: nil, queueRow: row.rowId) }
    }

    /// A queued record whose time did not read: counted (it is in the queue), placed nowhere.
    mutating func countUnreadable() {
        pendingRecords += 1
        complete = false
    }

    /// Counts a record at `time`; true when it is inside the timeline's window (then its fix
    /// belongs in the coverage: `add`, or `cover` with what a full read knows of it).
    mutating func count(time: Double, uuid: () -> String) -> Bool {
        pendingRecords += 1
        let isOldest = oldestPending == nil || time < oldestPending!.time
        if isOldest || pendingUuids.values.count < pendingUuids.limit {
            let id = uuid()
            if isOldest { oldestPending = (time, id) }
            pendingUuids.append(id)
        } else {
            pendingUuids.append("")  // counted, not kept
        }
        newestPending = max(newestPending ?? time, time)
        if let since, time < since { return false }
        if let until, time > until { return false }
        recordsInWindow += 1
        return true
    }

    /// A counted record's fix, as a full read of the record knows it (motion, position).
    mutating func cover(_ fix: CoverageMap.Edge) { coverage.add(fix) }

}
