import BGeoReader

/// The queue's per-record attempt counters at the moment of the dump (LongPing counts each
/// "other 4xx" answer and deletes a record at its third): how many records stand at each count,
/// and which ones stand highest.
struct QueueAttemptTally: Sendable {
    private(set) var recordsByAttempts: [Int: Int] = [:]
    private(set) var highest = 0
    private(set) var highestUUIDs = BoundedList<String>(limit: 20)
    private(set) var overLimitUUIDs = BoundedList<String>(limit: 20)

    /// Counts one queued record; `overLimit` when the policy should already have deleted it.
    mutating func add(attempts: Int, uuid: String, overLimit: Bool) {
        guard attempts > 0 else { return }
        recordsByAttempts[attempts, default: 0] += 1
        if attempts > highest {
            highest = attempts
            highestUUIDs = BoundedList(limit: 20)
        }
        if attempts == highest { highestUUIDs.append(uuid) }
        if overLimit { overLimitUUIDs.append(uuid) }
    }

    /// Records with at least one counted attempt.
    var triedRecords: Int { recordsByAttempts.values.reduce(0, +) }

    /// "12 at 2 of 3, 18 at 1 of 3", highest first.
    func levelsText(limit: Int) -> String {
        recordsByAttempts.keys.sorted(by: >).map { "\(recordsByAttempts[$0]!) at \($0) of \(limit)" }.joined(separator: ", ")
    }
}
