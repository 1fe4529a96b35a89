import BGeoReader
import Foundation

/// Follows the upload conversation in the log, oldest first (`http.request` → `http.response` →
/// `auth.refresh` / `auth.refresh.result` → `http.backoff` / `queue.drop`), pairs rows into
/// attempts, checks each step against the policy, and keeps the counts the diagnosis needs.
/// Memory is bounded: attempts keep the first and last `attemptLimit / 2`, uuid lists are cut.
struct UploadTracker {
    let rules: PolicyRules
    let redactor: Redactor
    var scrubber: SecretScrubber
    let attemptLimit: Int
    let uuidLimit: Int

    // Attempts: the first half kept in order, the newest half in a ring.
    private(set) var head: [UploadAttempt] = []
    private var ring: [UploadAttempt] = []
    private var ringStart = 0
    private(set) var omittedAttempts = 0
    private(set) var totalAttempts = 0
    /// The newest attempt, still open to its response, refresh and backoff rows.
    private(set) var current: UploadAttempt?

    // Policy state between rows.
    private var lastResponse: (row: Int64, status: Int, uuids: UUIDList, count: Int, retryAfter: Double?)?
    private var refreshDue: Int64?
    private var expectReset: Int64?
    private var pendingSplit: (row: Int64, count: Int)?
    /// A 413 (LongPing) whose batch the next request must halve.
    private var pendingHalve: (row: Int64, status: Int, count: Int, limit: Int)?
    private var nextIsAfterRefresh = false
    /// A refresh that succeeded for the current attempt's 401/403: the retry must come next.
    private var retryDue: (status: Int, refreshRow: Int64)?

    // Diagnosis counters.
    struct Stats {
        var successes = 0
        var failures = 0
        var lastSuccess: (at: Double, row: Int64)?
        /// Failing responses since the last 2xx.
        var trailingFailures = 0
        var trailingSince: (at: Double, row: Int64)?
        var trailingStatuses: [Int: Int] = [:]
        var trailingRows = BoundedList<Int64>(limit: 20)
        var lastStatus: Int?
        var lastAttemptAt: Double?

        var refreshSuccesses = 0
        var refreshFailures = 0
        /// Refresh failures since the last successful refresh.
        var refreshFailingSince: (at: Double, row: Int64)?
        var refreshFailingCount = 0
        var refreshFailingStatuses: [Int: Int] = [:]
        var refreshFailingRows = BoundedList<Int64>(limit: 20)
        var lastRefreshSucceeded: Bool?
        var lastRefreshAt: Double?

        var unauthorizedWithoutAuth = 0
        var unauthorizedRows = BoundedList<Int64>(limit: 20)
        var unauthorizedStatuses: [Int: Int] = [:]
        var unauthorizedFirst: Double?
        var unauthorizedLast: Double?

        var dropRows = BoundedList<Int64>(limit: 20)
        var dropUuids = BoundedList<String>(limit: 50)
        var dropStatuses: [Int: Int] = [:]
        var droppedRecords = 0
        /// `queue.drop` rows whose data is not a JSON object: they state no records to count.
        var unreadDrops = 0
        var dropFirst: Double?
        var dropLast: Double?
        /// `queue.drop` rows that broke the policy (a retryable status, or a poison batch not
        /// split): the one count both poison.dropped and policy.violation speak from.
        var dropsBreakingPolicy = 0

        var backoffs = 0
        var lastBackoff: (failures: Int, delay: Double, row: Int64)?
        var minDelay: Double?
        var maxDelay: Double?
    }
    private(set) var stats = Stats()

    struct Violations {
        /// Per rule, its first 20 pieces of evidence (the first one's note says where it was
        /// first broken) and how many more times it was broken.
        var lists: [PolicyRule: EvidenceList] = [:]

        /// Counts a violation of `rule`; its evidence is made only while the rule's list keeps
        /// evidence: a stranded engine breaks the backoff schedule at every failure, and making a
        /// sentence per row for a list that keeps 20 was a tenth of the timeline's row handling.
        /// (The arguments must not read the tracker: they are made inside its change.)
        mutating func add(_ rule: PolicyRule, _ description: @autoclosure () -> String, logIds: @autoclosure () -> [Int64],
                          uuids: @autoclosure () -> [String] = [], moreUUIDs: Int = 0) {
            lists[rule, default: EvidenceList(limit: 20)].add {
                var evidence = Evidence(note: description(), logIds: logIds(), uuids: uuids())
                // Distinct uuids counted where they were read, beyond those handed over.
                evidence.omittedUuids += moreUUIDs
                return evidence
            }
        }
    }
    private(set) var violations = Violations()

    /// The statuses that call for a token refresh, taken once: the policy's `refresh` is worked
    /// out when asked (a contract copied, its tables retained and released, per response).
    private let refreshTriggers: Set<Int>

    init(rules: PolicyRules, redactor: Redactor, attemptLimit: Int, uuidLimit: Int) {
        self.rules = rules
        refreshTriggers = rules.policy.refresh.triggerStatuses
        self.redactor = redactor
        scrubber = SecretScrubber(redactor: redactor)
        self.attemptLimit = max(2, attemptLimit)
        self.uuidLimit = uuidLimit
    }

    // MARK: rows

    /// How many uuids a request row must yield (`UploadRowFields`) to a tracker keeping
    /// `uuidLimit`: the attempt keeps `uuidLimit`, a violation cites up to 10.
    static func uuidsRead(uuidLimit: Int) -> Int { max(uuidLimit, 10) }

    mutating func request(_ entry: some LogRowStamp, _ data: UploadRowFields) {
        finishCurrent()
        let uuids = data.uuids
        let count = data.count ?? data.uuidCount
        // Built where it is kept: a local moved in at the end was copied (its strings retained).
        current = UploadAttempt(at: entry.time, logId: entry.rowId, count: count,
                                uuids: UUIDList(uuids.prefix(uuidLimit)), uuidCount: data.uuidCount)
        let url = data.url.map { scrubber.scrub(url: $0) }
        let afterRefresh = nextIsAfterRefresh
        updateCurrent { attempt in
            attempt.url = url
            attempt.afterRefresh = afterRefresh
        }
        nextIsAfterRefresh = false
        retryDue = nil
        if let due = refreshDue {
            let status = lastResponse?.status ?? 401
            violations.add(.refreshSkipped,
                           "the \(status) at row \(due) was followed by a new request at row \(entry.rowId) without a token refresh",
                           logIds: [due, entry.rowId])
            refreshDue = nil
        }
        if let split = pendingSplit {
            if count > 1 {
                violations.add(.poisonNotSplit,
                               "the poison response at row \(split.row) answered a batch of \(split.count); the next request (row \(entry.rowId)) re-sent \(count) records together instead of one at a time",
                               logIds: [split.row, entry.rowId], uuids: Array(uuids.prefix(10)))
            }
            pendingSplit = nil
        }
        if let halve = pendingHalve {
            if count > halve.limit {
                violations.add(.batchNotHalved,
                               "the \(halve.status) at row \(halve.row) answered a batch of \(halve.count); the next request (row \(entry.rowId)) carried \(count) records instead of at most \(halve.limit)",
                               logIds: [halve.row, entry.rowId], uuids: Array(uuids.prefix(10)))
            }
            pendingHalve = nil
        }
        totalAttempts += 1
    }

    mutating func response(_ entry: some LogRowStamp, _ data: UploadRowFields, authorizationConfigured: Bool) {
        if current == nil || current?.responseLogId != nil {
            // A response whose request row is gone (pruned log): still an attempt.
            finishCurrent()
            let count = data.count ?? 0
            current = UploadAttempt(at: entry.time, logId: entry.rowId, count: count, uuids: [], uuidCount: 0)
            totalAttempts += 1
        }
        let status = data.status ?? 0
        let outcome = rules.policy.classifier.classify(status: status, authorizationConfigured: authorizationConfigured)
        var response: String?
        if let text = data.response {
            let scrubbed = scrubber.scrub(cachedBody: text.count > 2000 ? String(text.prefix(2000)) : text)
            response = scrubbed.count > 300 ? String(scrubbed.prefix(300)) + "…" : scrubbed
        }
        let retryAfter = data.retryAfter
        var count = 0, afterRefresh = false, uuids: UUIDList = []
        updateCurrent { attempt in
            attempt.responseLogId = entry.rowId
            attempt.respondedAt = entry.time
            attempt.status = status
            attempt.outcome = outcome
            attempt.ms = data.ms
            if attempt.count == 0, let stated = data.count { attempt.count = stated }
            if let response { attempt.response = response }
            count = attempt.count
            afterRefresh = attempt.afterRefresh
            uuids = attempt.uuids
        }
        stats.lastStatus = status
        stats.lastAttemptAt = entry.time

        if outcome == .success {
            stats.successes += 1
            stats.lastSuccess = (entry.time, entry.rowId)
            stats.trailingFailures = 0
            stats.trailingSince = nil
            stats.trailingStatuses = [:]
            stats.trailingRows = BoundedList(limit: 20)
            expectReset = entry.rowId
            refreshDue = nil
        } else {
            stats.failures += 1
            if stats.trailingSince == nil { stats.trailingSince = (entry.time, entry.rowId) }
            stats.trailingFailures += 1
            stats.trailingStatuses[status, default: 0] += 1
            stats.trailingRows.append(entry.rowId)
        }
        if refreshTriggers.contains(status) {
            if authorizationConfigured {
                // One refresh per batch: a 401 on the retried request is not refreshed again.
                if !afterRefresh { refreshDue = entry.rowId }
            } else {
                stats.unauthorizedWithoutAuth += 1
                stats.unauthorizedRows.append(entry.rowId)
                stats.unauthorizedStatuses[status, default: 0] += 1
                if stats.unauthorizedFirst == nil { stats.unauthorizedFirst = entry.time }
                stats.unauthorizedLast = entry.time
            }
        }
        if outcome == .drop, count > 1, rules.policy.splitDroppedBatch {
            pendingSplit = (entry.rowId, count)
        }
        pendingHalve = rules.halvedBatchLimit(status: status, count: count, authorizationConfigured: authorizationConfigured)
            .map { (entry.rowId, status, count, $0) }
        lastResponse = (entry.rowId, status, uuids, count, retryAfter)
    }

    mutating func refreshRequest(_ entry: some LogRowStamp) {
        refreshDue = nil
        let triggers = refreshTriggers
        updateCurrent { attempt in
            guard attempt.refresh == nil, let status = attempt.status, triggers.contains(status) else { return }
            attempt.refresh = RefreshInfo(requestLogId: entry.rowId)
        }
    }

    /// An `auth.refresh.result` row stating `success` and `status` (`EngineRowFields`). Returns
    /// what the row says of the refresh (nil: it says neither success nor failure).
    @discardableResult
    mutating func refreshResult(_ entry: some LogRowStamp, success: Bool?, status: Int?) -> Bool? {
        var answered: Int??
        updateCurrent { attempt in
            guard var refresh = attempt.refresh, refresh.resultLogId == nil else { return }
            refresh.resultLogId = entry.rowId
            refresh.success = success
            refresh.status = status
            attempt.refresh = refresh
            answered = .some(attempt.status)
        }
        if success == true, let answered, let answered { retryDue = (answered, entry.rowId) }
        stats.lastRefreshAt = entry.time
        if success == true {
            stats.refreshSuccesses += 1
            stats.lastRefreshSucceeded = true
            stats.refreshFailingSince = nil
            stats.refreshFailingCount = 0
            stats.refreshFailingStatuses = [:]
            stats.refreshFailingRows = BoundedList(limit: 20)
            nextIsAfterRefresh = true
        } else if success == false {
            stats.refreshFailures += 1
            stats.lastRefreshSucceeded = false
            if stats.refreshFailingSince == nil { stats.refreshFailingSince = (entry.time, entry.rowId) }
            stats.refreshFailingCount += 1
            stats.refreshFailingStatuses[status ?? 0, default: 0] += 1
            stats.refreshFailingRows.append(entry.rowId)
        }
        return success
    }

    mutating func backoff(_ entry: some LogRowStamp, _ data: UploadRowFields, authorizationConfigured: Bool) {
        let failures = data.failures
        let delay = data.delay
        updateCurrent { attempt in
            guard attempt.backoffLogId == nil else { return }
            attempt.backoffLogId = entry.rowId
            attempt.backoffDelay = delay
            attempt.backoffFailures = failures
        }
        stats.backoffs += 1
        if let halve = pendingHalve {
            violations.add(.batchNotHalved,
                           "the \(halve.status) at row \(halve.row) answered a batch of \(halve.count); the engine went to backoff (row \(entry.rowId)) instead of re-sending at once with at most \(halve.limit)",
                           logIds: [halve.row, entry.rowId])
            pendingHalve = nil
        }
        if let due = retryDue {
            violations.add(.refreshNotRetried,
                           "the token refresh after the \(due.status) succeeded (row \(due.refreshRow)) but the engine went to backoff (row \(entry.rowId)) instead of retrying the request with the new token",
                           logIds: [due.refreshRow, entry.rowId])
            retryDue = nil
        }
        if let due = refreshDue {
            let status = lastResponse?.status ?? 401
            violations.add(.refreshSkipped,
                           "the \(status) at row \(due) went straight to backoff (row \(entry.rowId)) without a token refresh",
                           logIds: [due, entry.rowId])
            refreshDue = nil
        }
        guard let failures else { return }
        if let reset = expectReset {
            if failures != 1 {
                violations.add(.successNoReset,
                               "after the 2xx at row \(reset), the next backoff (row \(entry.rowId)) counted \(failures) failures instead of restarting at 1",
                               logIds: [reset, entry.rowId])
            }
            expectReset = nil
        }
        if let delay {
            stats.lastBackoff = (failures, delay, entry.rowId)
            stats.minDelay = min(stats.minDelay ?? delay, delay)
            stats.maxDelay = max(stats.maxDelay ?? delay, delay)
            let retryAfter = data.retryAfter ?? lastResponse?.retryAfter
            if !rules.backoffIsAcceptable(failures: failures, delay: delay, retryAfter: retryAfter,
                                          lastStatus: lastResponse?.status, authorizationConfigured: authorizationConfigured) {
                let rules = rules, responseRow = lastResponse?.row
                violations.add(.backoffSchedule,
                               "after failure \(failures) the engine waited \(DurationFormat.short(delay)) (row \(entry.rowId)); the \(rules.policy.engine.rawValue) schedule says \(rules.expectedDelayText(failures: failures))",
                               logIds: (responseRow.map { [$0] } ?? []) + [entry.rowId])
            }
        }
    }

    mutating func drop(_ entry: some LogRowStamp, _ fields: DropRowFields, authorizationConfigured: Bool) {
        let uuidCount = fields.uuidCount
        let status = fields.status ?? lastResponse?.status
        stats.dropRows.append(entry.rowId)
        stats.dropUuids.append(contentsOf: fields.uuids, of: uuidCount)
        stats.droppedRecords += max(uuidCount, fields.count ?? 0)
        if !fields.isObject { stats.unreadDrops += 1 }
        if let status { stats.dropStatuses[status, default: 0] += 1 }
        if stats.dropFirst == nil { stats.dropFirst = entry.time }
        stats.dropLast = entry.time
        updateCurrent { attempt in
            if attempt.dropLogId == nil { attempt.dropLogId = entry.rowId }
        }
        let logIds = (lastResponse.map { [$0.row] } ?? []) + [entry.rowId]
        let engine = rules.policy.engine.rawValue
        if rules.dropIsViolation(status: status, authorizationConfigured: authorizationConfigured), let status {
            stats.dropsBreakingPolicy += 1
            violations.add(.retryableDropped,
                           "\(fields.recordsText) dropped (row \(entry.rowId)) after status \(UploadTracker.statusText(status)), which the \(engine) policy retries",
                           logIds: logIds, uuids: fields.distinctUUIDs, moreUUIDs: fields.distinctCount - fields.distinctUUIDs.count)
        } else if rules.dropIsUnsplit(uuidCount: uuidCount) {
            stats.dropsBreakingPolicy += 1
            violations.add(.poisonNotSplit,
                           "\(uuidCount) records dropped together (row \(entry.rowId)) after a poison \(status.map(UploadTracker.statusText) ?? "response"); the batch should have been re-sent one record at a time",
                           logIds: logIds, uuids: fields.distinctUUIDs, moreUUIDs: fields.distinctCount - fields.distinctUUIDs.count)
            pendingSplit = nil
        }
    }

    /// Closes the newest attempt (call once at the end).
    mutating func finish() { finishCurrent() }

    /// Changes the open attempt where it is stored: taken out as a copy and put back, its
    /// strings and uuid list were retained and released on every row that touched it.
    private mutating func updateCurrent(_ change: (inout UploadAttempt) -> Void) {
        guard current != nil else { return }
        change(&current!)
    }

    private mutating func finishCurrent() {
        guard let attempt = current.take() else { return }
        let half = attemptLimit / 2
        if head.count < half {
            head.append(attempt)
        } else if ring.count < half {
            ring.append(attempt)
        } else {
            ring[ringStart] = attempt
            ringStart = (ringStart + 1) % ring.count
            omittedAttempts += 1
        }
    }

    /// Every kept attempt, oldest first.
    var attempts: [UploadAttempt] {
        head + Array(ring[ringStart...]) + Array(ring[..<ringStart])
    }

    // MARK: helpers

    static func int(_ value: JSONValue?) -> Int? {
        guard let value else { return nil }
        if let i = value.intValue { return i }
        if let s = value.stringValue { return UploadRowFields.int(text: s) }
        return nil
    }

    /// A number, or a string holding one; never NaN or infinite (`Double("nan")` parses).
    static func double(_ value: JSONValue) -> Double? {
        if let d = value.doubleValue { return d.isFinite ? d : nil }
        if let s = value.stringValue { return UploadRowFields.double(text: s) }
        return nil
    }

    static func strings(_ value: JSONValue?) -> [String] {
        value?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// `429 (throttled)`, `0 (network error)`.
    static func statusText(_ status: Int) -> String {
        switch status {
        case 0: return "0 (network error)"
        case 401: return "401 (unauthorized)"
        case 403: return "403 (forbidden)"
        case 429: return "429 (throttled)"
        case 500...599: return "\(status) (server error)"
        default: return String(status)
        }
    }
}
