extension Dump {
    /// When a finding began and last happened: as the diagnosis states it, else (or for the end
    /// it does not state) the span of the rows it cites. The fleet row and the Timesketch export
    /// both date a finding by it.
    package func span(of finding: Finding) -> (first: Double, last: Double)? {
        if let first = finding.firstAt, let last = finding.lastAt { return (first, last) }
        let cited = evidenceTimeSpan(of: finding)
        guard let first = finding.firstAt ?? cited?.first, let last = finding.lastAt ?? cited?.last else { return nil }
        return (min(first, last), max(first, last))
    }

    /// The first and last time among the rows a finding cites: its log rows (`ts`) and its queued
    /// records (their fix time). Records no longer queued (dropped, uploaded) have no time here;
    /// nil when nothing cited has one. Evidence lists are bounded, so this is a few indexed lookups.
    func evidenceTimeSpan(of finding: Finding) -> (first: Double, last: Double)? {
        var first: Double?
        var last: Double?
        func see(_ time: Double) {
            first = min(first ?? time, time)
            last = max(last ?? time, time)
        }
        let logIds = Array(Set(finding.allLogIds)).sorted()
        if layout.hasLog, !logIds.isEmpty,
           let stmt = try? database.prepare("SELECT ts FROM log_entries WHERE id IN (\(logIds.map(String.init).joined(separator: ",")))") {
            while (try? stmt.step()) == true {
                if let text = stmt.text(0), let time = Timestamp.parse(text) { see(time) }
            }
        }
        for uuid in Set(finding.allUuids) where !uuid.isEmpty {
            forEachRecord(QueueQuery(uuid: uuid, limit: 1, includeText: false)) { see($0.time) }
        }
        guard let first, let last else { return nil }
        return (first, last)
    }
}
