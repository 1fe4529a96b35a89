import BGeoReader

/// How much of the history the findings speak of the log still holds. A log pruned by
/// `logMaxDays` or the 25,000-row cap, or read through a `--since` window, can start long after
/// the trouble began: an onset read off its first surviving row would be hours late and its
/// counts short of the engine's own. Every finding carries `isComplete`; onsets are worded
/// "at least since" and the gap is said in numbers when it is not.
public struct HistoryCoverage: Sendable, Equatable {
    /// Why the log does not cover the whole history, one clause each ("the log starts at …").
    public private(set) var shortfalls: [String] = []

    /// True when nothing says history is missing.
    public var isComplete: Bool { shortfalls.isEmpty }

    /// "The history is incomplete: …; …." or nil when it is complete.
    public var sentence: String? {
        guard !isComplete else { return nil }
        return "The history is incomplete: " + shortfalls.joined(separator: "; ") + "."
    }

    /// "since T" or "at least since T".
    public func since(_ time: String) -> String { (isComplete ? "since " : "at least since ") + time }

    public init() {}

    /// - Parameters:
    ///   - since: the `--since` bound, if any (the window starts there, not the history);
    ///     `dumpLogStart` the whole log's first row's time (a window before it cuts nothing).
    ///   - logStart: the time of the first log row read; `oldestPending` the oldest queued record's.
    ///   - firstLogRowId: the log's first row id (above 1: older rows were deleted).
    ///   - engineFailures: `state http.failures`, compared only over the whole history.
    ///   - loggedFailures: the failing uploads in a row at the end of the log.
    init(since: Double?, dumpLogStart: Double?, wholeHistory: Bool, logStart: Double?, oldestPending: Double?, firstLogRowId: Int64?,
         engineFailures: Int?, loggedFailures: Int, time: (Double) -> String) {
        if let since, since > (dumpLogStart ?? -.infinity) { shortfalls.append("the window starts at \(time(since)); rows before it were not read") }
        if wholeHistory, let logStart, let oldestPending, oldestPending < logStart {
            shortfalls.append("the log starts at \(time(logStart)), \(DurationFormat.short(logStart - oldestPending)) after the oldest pending record (\(time(oldestPending)))")
        }
        if wholeHistory, let firstLogRowId, firstLogRowId > 1 {
            let gone = firstLogRowId - 1
            shortfalls.append("its first surviving row is #\(firstLogRowId), so \(gone) earlier row\(gone == 1 ? " was" : "s were") deleted (logMaxDays or the 25,000-row cap)")
        }
        if wholeHistory, loggedFailures > 0, let engineFailures, engineFailures > loggedFailures {
            shortfalls.append("the engine counted \(engineFailures) consecutive failed uploads (state http.failures), \(engineFailures - loggedFailures) more than the \(loggedFailures) the log shows")
        }
    }
}
