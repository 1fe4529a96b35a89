import BGeoReader

extension Dump {
    /// When a finding began and last happened: as the diagnosis states it, else (or for the end
    /// it does not state) the span of the rows it cites. The fleet row and the Timesketch export
    /// both date a finding by it.
    package func span(of finding: Finding) -> (first: Double, last: Double)? {
        if let first = finding.firstAt, let last = finding.lastAt { return (first, last) }
        let cited = timeSpan(logIds: finding.allLogIds, uuids: finding.allUuids)
        guard let first = finding.firstAt ?? cited?.first, let last = finding.lastAt ?? cited?.last else { return nil }
        return (min(first, last), max(first, last))
    }
}
