import BGeoReader

/// What the diagnosis knows once the dump is read: the queue at the moment of the dump, the log's
/// span, the upload history (`UploadTracker`), the engine events the rules count, the config and
/// state, and every tracking gap. A plain value, built once (`TimelineBuilder.diagnosisFacts`),
/// read by every `FindingRule`.
struct DiagnosisFacts: Sendable {
    var options: TimelineOptions
    var policy: UploadPolicy
    var state: EngineState
    var recordedConfig: SDKConfig
    var configSource: ConfigSource
    /// Whether the config in force lets the engine refresh a token, and what it lacks if not.
    var refreshReadiness: RefreshContract.Readiness
    var stats: UploadTracker.Stats
    var violations: UploadTracker.Violations
    var totalAttempts: Int

    var pendingRecords: Int
    var oldestPending: (time: Double, uuid: String)?
    var newestPending: Double?
    var pendingUuids: BoundedList<String>
    var queueAttempts: QueueAttemptTally

    var firstAt: Double?
    var lastAt: Double?
    var prunes: [String: TimelineBuilder.Tally]
    var deferrals: [String: TimelineBuilder.Tally]
    /// The device's connectivity at the last `connectivity` row.
    var connected: Bool?
    /// Every gap, with its context (the listing's limit does not apply here).
    var gaps: [TrackingGap]
    /// Failed uploads of the log lane (a retryable status), their statuses, and the lane's last outcome.
    var logUploadFailures = TimelineBuilder.Tally()
    var logUploadStatuses: [Int: Int] = [:]
    var lastLogUploadSucceeded: Bool?
    /// The `location` log lines read: the only place a dropped or evicted fix may survive.
    var locationLines = 0
    /// Offline stretches from the `connectivity` rows (an hour or more).
    var offline = OfflinePeriods()
    /// Backward steps of the device's clock.
    var clockSteps = ClockSteps()
    /// How much of the history the log holds (onsets are "at least since" when not all).
    var history = HistoryCoverage()

    /// A 401/403 is answered by a refresh only when the engine can refresh.
    var authorizationConfigured: Bool { refreshReadiness.canRefresh }

    /// True without `--since` / `--until`: only then can the log's silence or the engine's state
    /// (as of the dump) be compared with what the log shows.
    var isWholeHistory: Bool { options.since == nil && options.until == nil }

    /// The last moment the dump speaks for: its last log row, else its newest record.
    var end: Double { lastAt ?? newestPending ?? 0 }

    /// The engine's failure counter and next attempt, as evidence notes.
    var stateNotes: [String] {
        var notes: [String] = []
        if let failures = state.httpFailures { notes.append("state http.failures = \(failures)") }
        if let next = state.nextAttemptAt { notes.append("state http.next_attempt_at = \(next)") }
        return notes
    }

    /// "the access token expired at …" from the JWT's exp claim (never the token itself).
    var accessTokenNote: String? {
        let token = state.auth?.valueIgnoringCase("accessToken")?.stringValue
            ?? recordedConfig["authorization"]?.objectValue?.valueIgnoringCase("accessToken")?.stringValue
        guard let token, let exp = JWT.expiry(token) ?? state.sanitized?.expiry(ofToken: token) else { return nil }
        // Compared with the last log row strictly; equal times say "at" (no "before" that is not).
        guard let reference = lastAt else { return "the stored access token's expiry (exp) is \(time(exp))" }
        if exp < reference { return "the stored access token expired at \(time(exp)), before the last log row (\(time(reference)))" }
        if exp == reference { return "the stored access token expired at \(time(exp)), the time of the last log row" }
        return "the stored access token is valid until \(time(exp))"
    }

    // MARK: words

    /// "401 ×37, 0 ×2" (most frequent first).
    func statusList(_ statuses: [Int: Int]) -> String {
        statuses.sorted { ($0.value, -$0.key) > ($1.value, -$1.key) }
            .map { $0.value == 1 ? String($0.key) : "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }

    func time(_ t: Double) -> String { Timestamp.format(t, milliseconds: false) }

    /// " at T" or " between T1 and T2".
    func when(_ first: Double, _ last: Double) -> String {
        first == last ? " at \(time(first))" : " between \(time(first)) and \(time(last))"
    }

    /// "1st", "2nd", "3rd", "4th" …
    static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 10, n % 100) {
        case (1, let h) where h != 11: suffix = "st"
        case (2, let h) where h != 12: suffix = "nd"
        case (3, let h) where h != 13: suffix = "rd"
        default: suffix = "th"
        }
        return "\(n)\(suffix)"
    }

    /// "850 m", "27.3 km".
    static func distanceText(_ metres: Double) -> String {
        guard metres.isFinite else { return "? m" }
        return metres < 1000 ? "\(Int(clamping: metres + 0.5, to: Int.min...Int.max)) m" : String(format: "%.1f km", metres / 1000)
    }
}
