extension Dump {
    /// The first and last time among the given rows: log rows (`ts`) and queued records (their
    /// fix time). Records no longer queued (dropped, uploaded) have no time here; nil when none
    /// has one. Callers pass bounded evidence lists, so this is a few indexed lookups.
    package func timeSpan(logIds: [Int64], uuids: [String]) -> (first: Double, last: Double)? {
        var first: Double?
        var last: Double?
        func see(_ time: Double) {
            first = min(first ?? time, time)
            last = max(last ?? time, time)
        }
        let logIds = Array(Set(logIds)).sorted()
        if layout.hasLog, !logIds.isEmpty,
           let stmt = try? database.prepare("SELECT ts FROM log_entries WHERE id IN (\(logIds.map(String.init).joined(separator: ",")))") {
            while (try? stmt.step()) == true {
                if let text = stmt.text(0), let time = Timestamp.parse(text) { see(time) }
            }
        }
        for uuid in Set(uuids) where !uuid.isEmpty {
            forEachRecord(QueueQuery(uuid: uuid, limit: 1, includeText: false)) { see($0.time) }
        }
        guard let first, let last else { return nil }
        return (first, last)
    }
}
