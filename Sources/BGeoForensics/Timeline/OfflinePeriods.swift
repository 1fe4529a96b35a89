import BGeoReader

/// The stretches the device said it was offline (`connectivity` rows, `connected: false` until the
/// next `connected: true`), so a finding can name the offline period that explains it (records
/// aged out by maxDays while nothing could upload). Only periods of at least `minimum` are kept,
/// at most `limit` of them (the longest win), so memory stays flat on a flapping connection.
struct OfflinePeriods: Sendable {
    struct Period: Sendable, Equatable {
        var start: Double
        /// nil: still offline at the last row.
        var end: Double?
        var startRow: Int64
        var endRow: Int64?

        func length(until last: Double) -> Double { (end ?? last) - start }
    }

    static let minimum = 3600.0
    static let limit = 200

    private(set) var periods: [Period] = []
    private var open: (at: Double, row: Int64)?

    /// A `connectivity` row at `time`: `connected` false opens a period, true closes it.
    mutating func note(connected: Bool?, at time: Double, row: Int64) {
        guard let connected, time.isFinite else { return }
        if !connected {
            if open == nil { open = (time, row) }
        } else if let started = open {
            keep(Period(start: started.at, end: time, startRow: started.row, endRow: row))
            open = nil
        }
    }

    /// The periods, the one still open at `last` included.
    func all(until last: Double) -> [Period] {
        guard let open, last - open.at >= OfflinePeriods.minimum else { return periods }
        return periods + [Period(start: open.at, end: nil, startRow: open.row, endRow: nil)]
    }

    /// The longest period that began before `time` (nil: none of at least an hour).
    func longest(before time: Double, last: Double) -> Period? {
        all(until: last).filter { $0.start < time }.max { $0.length(until: last) < $1.length(until: last) }
    }

    private mutating func keep(_ period: Period) {
        guard let end = period.end, end - period.start >= OfflinePeriods.minimum else { return }
        periods.append(period)
        if periods.count > OfflinePeriods.limit * 2 {
            // Keep the longest `limit`, in time order.
            periods = Array(periods.sorted { ($0.end ?? 0) - $0.start > ($1.end ?? 0) - $1.start }.prefix(OfflinePeriods.limit))
                .sorted { $0.start < $1.start }
        }
    }
}
