import BGeoReader

/// Backward steps of the device's clock, seen in the log: rows are written in id order, so a row
/// whose time is well before the newest time seen, and a following row that stays there, mean
/// the clock was set back (a late row alone — written late, then the log goes on — is not a step).
/// Times around a step repeat earlier ones: gaps and onsets near it are measured on that clock.
struct ClockSteps: Sendable {
    struct Step: Sendable, Equatable {
        /// The newest time before the step and the time the clock went back to.
        var from: Double
        var to: Double
        /// The last row before the step and the first row after it.
        var rowBefore: Int64
        var rowAfter: Int64
        var seconds: Double { from - to }
    }

    /// Smaller steps are NTP corrections and rows written a little late, not a story.
    static let minimum = 300.0

    private(set) var count = 0
    private(set) var largest: Step?
    private(set) var rows = BoundedList<Int64>(limit: 20)
    private var newest: (time: Double, row: Int64)?
    private var candidate: Step?

    /// Rows in id order.
    mutating func note(time: Double, row: Int64) {
        guard time.isFinite else { return }
        if let pending = candidate {
            candidate = nil
            if time < pending.from - ClockSteps.minimum {
                // The log goes on from the earlier time: the clock stepped back.
                count += 1
                if (largest?.seconds ?? 0) < pending.seconds { largest = pending }
                rows.append(pending.rowBefore)
                rows.append(pending.rowAfter)
                newest = (time, row)
                return
            }
        }
        guard let last = newest else { newest = (time, row); return }
        if time < last.time - ClockSteps.minimum {
            candidate = Step(from: last.time, to: time, rowBefore: last.row, rowAfter: row)
        } else if time > last.time {
            newest = (time, row)
        }
    }
}
