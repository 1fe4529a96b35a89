import Foundation

/// Limits and knobs of one run.
public struct ResyncOptions: Sendable {
    /// The policy with its backoff already scaled by `--backoff-initial/--backoff-max`.
    public var policy: UploadPolicy
    /// Stop (records stay queued) after this many consecutive failed attempts; nil = never.
    public var maxAttempts: Int?
    /// Stop once this many seconds have passed, or a wait would cross it; nil = no deadline.
    public var deadline: Double?
    /// The URL of the location lane (already `--url` or config `url`).
    public var url: String
    /// The log lane's URL (`--log-url` or config `logUrl`).
    public var logURL: String?

    public init(policy: UploadPolicy, maxAttempts: Int? = nil, deadline: Double? = nil, url: String, logURL: String? = nil) {
        self.policy = policy
        self.maxAttempts = maxAttempts
        self.deadline = deadline
        self.url = url
        self.logURL = logURL
    }
}

/// Where a run is, for progress bars and plain progress lines.
public struct ResyncProgress: Sendable {
    public var lane: String
    /// Records (or log rows) delivered this run.
    public var sent: Int
    public var remaining: Int
    public var quarantined: Int
    public var requests: Int
    public var elapsed: Double
    /// The wait in progress, seconds (0 when none).
    public var backoff: Double
}

/// Something an operator should see.
public enum ResyncEvent: Sendable {
    case progress(ResyncProgress)
    /// A one-line note: backoff, refresh, quarantine, split, halved batch, stop reason.
    case note(String)
}

/// Drains a working copy to an endpoint with the SDK's HTTP contract. All decisions come from
/// `ResyncStateMachine`; every response and its consequence is committed in one transaction.
public final class ResyncEngine {
    public let workingCopy: WorkingCopy
    public let builder: RequestBuilder
    public let machine: ResyncStateMachine
    public let options: ResyncOptions
    public private(set) var tokens: TokenRefresh.Tokens
    public private(set) var redactor: Redactor
    private let transport: HTTPSending
    private let sleep: (Double) -> Void
    private let random: () -> Double
    private let clock: () -> Double
    private let onEvent: (ResyncEvent) -> Void
    private let start: Double

    // Counters of this run.
    public private(set) var delivered = 0
    public private(set) var quarantinedThisRun = 0
    public private(set) var requests = 0
    public private(set) var refreshes = 0
    public private(set) var failedRefreshes = 0
    public private(set) var logsUploaded = 0
    public private(set) var stopReason: String?
    /// Seconds spent inside `drainLocations`/`drainLogs` (this run).
    public private(set) var drainSeconds = 0.0
    private var lastProgressAt = -1.0

    public init(workingCopy: WorkingCopy, settings: ResyncSettings, tokens: TokenRefresh.Tokens, options: ResyncOptions,
                transport: HTTPSending, redactor: Redactor,
                sleep: @escaping (Double) -> Void = { if $0 > 0 { Thread.sleep(forTimeInterval: $0) } },
                random: @escaping () -> Double = { Double.random(in: 0...1) },
                clock: @escaping () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
                onEvent: @escaping (ResyncEvent) -> Void = { _ in }) {
        self.workingCopy = workingCopy
        builder = RequestBuilder(settings: settings)
        // Configured = there is a token to send or a way to get one.
        let authorized = settings.authorization != nil && (tokens.accessToken != nil || settings.authorization?.refreshURL != nil)
        machine = ResyncStateMachine(policy: options.policy, authorizationConfigured: authorized)
        self.options = options
        self.tokens = tokens
        var redactor = redactor
        for token in [tokens.accessToken, tokens.refreshToken].compactMap({ $0 }) { redactor.learn(secret: token) }
        self.redactor = redactor
        self.transport = transport
        self.sleep = sleep
        self.random = random
        self.clock = clock
        self.onEvent = onEvent
        start = clock()
    }

    private var bearer: String? { machine.authorizationConfigured ? tokens.accessToken : nil }
    private var elapsed: Double { clock() - start }

    /// True (and `stopReason` set) when the run must stop before the next request or wait.
    private func mustStop(failures: Int, waiting: Double = 0) -> Bool {
        if let max = options.maxAttempts, failures >= max {
            stopReason = "stopped after \(failures) consecutive failed attempts (--max-attempts \(max))"
            return true
        }
        if let deadline = options.deadline, elapsed + waiting >= deadline {
            stopReason = waiting > 0
                ? String(format: "stopped: the next wait (%.1f s) would pass the --deadline", waiting)
                : "stopped at the --deadline"
            return true
        }
        return false
    }

    private func report(_ lane: String, remaining: Int, backoff: Double = 0, force: Bool = false) {
        let now = clock()
        guard force || backoff > 0 || now - lastProgressAt >= 0.2 else { return }
        lastProgressAt = now
        onEvent(.progress(ResyncProgress(lane: lane, sent: lane == "logs" ? logsUploaded : delivered, remaining: remaining,
                                         quarantined: quarantinedThisRun, requests: requests, elapsed: now - start,
                                         backoff: backoff)))
    }

    private func wait(_ delay: Double, lane: String, remaining: Int, failures: Int, status: Int) -> Bool {
        if mustStop(failures: failures, waiting: delay) { return false }
        onEvent(.note(String(format: "status %d: backing off %.2f s (failure %d in a row)", status, delay, failures)))
        report(lane, remaining: remaining, backoff: delay, force: true)
        sleep(delay)
        return true
    }

    // MARK: locations

    /// Drains the location queue of the working copy, oldest first.
    public func drainLocations() throws {
        let began = clock()
        defer { drainSeconds += clock() - began }
        let wc = workingCopy
        var remaining = wc.remaining
        var failures = 0
        var alreadyRefreshed = false
        var attempt = 0
        var attemptRow: Int64 = -1
        var limit = builder.settings.batchLimit
        let halved = try wc.progress("batch_limit")
        if halved > 0 { limit = min(limit ?? Int.max, Int(halved)) }
        report("locations", remaining: remaining, force: true)
        // The batch after the one in flight, read and built while the server answers. It is used
        // only when the in-flight batch was delivered: then its rows are exactly the oldest queued
        // ones, the token and the batch limit are unchanged, and it is still sent only after that
        // delivery is committed (a kill re-sends at most the batch in flight).
        var prepared: (rows: [WorkingCopy.Row], request: HTTPRequestSpec)?
        // Only this engine writes split_until: read once, then kept in step with what it commits.
        var splitUntil = try wc.progress("split_until")
        while remaining > 0 {
            if mustStop(failures: failures) { break }
            var rows: [WorkingCopy.Row]
            let request: HTTPRequestSpec
            if let next = prepared, let first = next.rows.first, first.id > splitUntil {
                rows = next.rows
                request = next.request
            } else {
                rows = try wc.nextBatch(limit: limit)
                guard let first = rows.first else { break }
                if first.id <= splitUntil { rows = [first] }
                request = builder.locationRequest(rows.map { RequestBuilder.Record(uuid: $0.uuid, json: $0.json) },
                                                  accessToken: bearer, url: options.url)
            }
            prepared = nil
            let first = rows[0]
            if first.id != attemptRow { attempt = 0 }
            attemptRow = first.id
            attempt += 1
            var next: (rows: [WorkingCopy.Row], request: HTTPRequestSpec)?
            let prefetch = remaining > rows.count && first.id > splitUntil
            let token = bearer
            var bodySHA256: String?
            var uuidsJSON: String?
            let result = transport.send(request) {
                // The journal's fingerprint of this body and its uuid list, written while the server works.
                bodySHA256 = SHA256Hasher.hex(bytes: request.body)
                uuidsJSON = WorkingCopy.jsonArray(rows.map(\.uuid))
                guard prefetch, let last = rows.last else { return }
                // Stored records go into the body as bytes; a batch that needs re-serialising
                // (extras, a record merged into the root) is read again as text.
                var stored: [UInt8] = []
                stored.reserveCapacity(request.body.count + request.body.count / 4)
                guard let following = try? wc.nextBatch(after: last.id, limit: limit, appendingRecordsTo: &stored),
                      !following.isEmpty else { return }
                if let request = builder.locationRequest(storedRecords: stored, count: following.count, accessToken: token,
                                                         url: options.url) {
                    next = (following, request)
                } else if let texts = try? wc.nextBatch(after: last.id, limit: limit), !texts.isEmpty {
                    next = (texts, builder.locationRequest(texts.map { RequestBuilder.Record(uuid: $0.uuid, json: $0.json) },
                                                           accessToken: token, url: options.url))
                }
            }
            requests += 1
            let input = ResyncStateMachine.Input(status: result.status, batchCount: rows.count,
                                                 alreadyRefreshed: alreadyRefreshed, failures: failures,
                                                 retryAfter: result.retryAfter, attempts: rows.map(\.attempts),
                                                 jitterUnit: random())
            let action = machine.decide(input)
            let response = String(result.body.prefix(1024))
            try wc.transaction {
                try wc.journal(.init(lane: "locations", request: request, uuids: rows.map(\.uuid), status: result.status,
                                     response: response, ms: result.milliseconds, attempt: attempt,
                                     outcome: ResyncEngine.name(action), requestSHA256: bodySHA256, uuidsJSON: uuidsJSON),
                               redactor: redactor, storeBody: !(200...299).contains(result.status))
                switch action {
                case .deliver:
                    try wc.markDelivered(rows)
                case .split:
                    try wc.setProgress("split_until", rows[rows.count - 1].id)
                case .quarantine:
                    try wc.quarantine(rows, status: result.status, response: response, reason: "poison (status \(result.status))")
                case .halve(let n):
                    try wc.setProgress("batch_limit", Int64(n))
                case .countAttempts(let next, let drop, _):
                    for (index, row) in rows.enumerated() where !drop.contains(index) { try wc.setAttempts(row, next[index]) }
                    try wc.quarantine(drop.map { rows[$0] }, status: result.status, response: response,
                                      reason: "dropped after \(options.policy.maxAttemptsBeforeDrop ?? 3) attempts (status \(result.status))")
                case .refresh, .retry:
                    break
                }
            }
            switch action {
            case .deliver:
                delivered += rows.count
                remaining -= rows.count
                failures = 0
                alreadyRefreshed = false
                attempt = 0
                prepared = next
            case .split:
                splitUntil = rows[rows.count - 1].id
                onEvent(.note("status \(result.status) on a batch of \(rows.count): re-sending its records one at a time"))
            case .quarantine:
                quarantinedThisRun += rows.count
                remaining -= rows.count
                attempt = 0
                onEvent(.note("status \(result.status): quarantined \(rows.map(\.uuid).joined(separator: ", "))"))
            case .halve(let n):
                limit = n
                onEvent(.note("status \(result.status): halving the batch to \(n)"))
            case .refresh:
                guard try recover(refreshing: true, delay: machine.backoff(input), lane: "locations", remaining: remaining,
                                  status: result.status, failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            case .retry(let delay):
                guard try recover(refreshing: false, delay: delay, lane: "locations", remaining: remaining,
                                  status: result.status, failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            case .countAttempts(_, let drop, let delay):
                quarantinedThisRun += drop.count
                remaining -= drop.count
                failures += 1
                if !drop.isEmpty {
                    onEvent(.note("status \(result.status): quarantined \(drop.map { rows[$0].uuid }.joined(separator: ", ")) after the attempt limit"))
                }
                if remaining > 0 {
                    guard wait(delay, lane: "locations", remaining: remaining, failures: failures, status: result.status) else { break }
                }
            }
            if stopReason != nil { break }
            report("locations", remaining: remaining)
        }
        try wc.purgeDelivered()
        report("locations", remaining: remaining, force: true)
    }

    static func name(_ action: ResyncStateMachine.Action) -> String {
        switch action {
        case .deliver: return "delivered"
        case .split: return "split"
        case .quarantine: return "quarantined"
        case .refresh: return "refresh"
        case .retry: return "retry"
        case .halve: return "halve"
        case .countAttempts(_, let drop, _): return drop.isEmpty ? "attempt-counted" : "attempt-counted+quarantined"
        }
    }

    // MARK: token refresh

    /// POSTs refreshUrl; on success stores the rotated pair in the working copy (like
    /// getAuthState()) and uses it from the next request on.
    /// What both lanes do after a transient failure: try the token refresh when asked (a success
    /// retries at once), otherwise count a failure and wait out `delay`. False when the run must
    /// stop (deadline or attempt limit reached while waiting).
    private func recover(refreshing: Bool, delay: Double, lane: String, remaining: Int, status: Int,
                         failures: inout Int, alreadyRefreshed: inout Bool) throws -> Bool {
        if refreshing, try refresh() {
            alreadyRefreshed = true
            return true
        }
        failures += 1
        alreadyRefreshed = false
        return wait(delay, lane: lane, remaining: remaining, failures: failures, status: status)
    }

    private func refresh() throws -> Bool {
        refreshes += 1
        guard let authorization = builder.settings.authorization,
              let request = TokenRefresh.request(authorization, refreshToken: tokens.refreshToken) else {
            failedRefreshes += 1
            onEvent(.note("token refresh impossible: authorization has no refreshUrl"))
            return false
        }
        let result = transport.send(request)
        requests += 1
        let rotated = (200...299).contains(result.status) ? TokenRefresh.parseResponse(result.body, previous: tokens) : nil
        if let rotated {
            for token in [rotated.accessToken, rotated.refreshToken].compactMap({ $0 }) { redactor.learn(secret: token) }
        }
        // The journal never holds the refresh token or the new pair in clear.
        var journaled = request
        journaled.body = Array(redactor.redact(text: request.bodyText).utf8)
        try workingCopy.transaction {
            try workingCopy.journal(.init(lane: "refresh", request: journaled, uuids: [], status: result.status,
                                          response: redactor.redact(text: String(result.body.prefix(1024))),
                                          ms: result.milliseconds, attempt: 1,
                                          outcome: rotated != nil ? "refreshed" : "refresh-failed"), redactor: redactor)
            if let rotated { try workingCopy.storeTokens(rotated) }
        }
        if let rotated {
            tokens = rotated
            onEvent(.note("token refreshed (status \(result.status)); access token now \(TokenFingerprint(rotated.accessToken ?? "").fingerprint)"))
            return true
        }
        failedRefreshes += 1
        onEvent(.note("token refresh failed (status \(result.status)); the batch stays queued"))
        return false
    }

    // MARK: logs

    /// Re-uploads `log_entries` not yet uploaded, in batches of 100, as the SDK's log flusher.
    public func drainLogs() throws {
        let began = clock()
        defer { drainSeconds += clock() - began }
        guard let url = options.logURL else { return }
        let wc = workingCopy
        var remaining = wc.pendingLogs
        var failures = 0
        var alreadyRefreshed = false
        var attempt = 0
        report("logs", remaining: remaining, force: true)
        while remaining > 0 {
            if mustStop(failures: failures) { break }
            let entries = try wc.nextLogBatch(limit: 100)
            guard !entries.isEmpty else { break }
            attempt += 1
            let request = builder.logRequest(entries, url: url, accessToken: bearer)
            let result = transport.send(request)
            requests += 1
            let input = ResyncStateMachine.Input(status: result.status, batchCount: entries.count,
                                                 alreadyRefreshed: alreadyRefreshed, failures: failures,
                                                 retryAfter: result.retryAfter, jitterUnit: random())
            let action = machine.decideLog(input)
            try wc.transaction {
                let outcome: String
                switch action {
                case .markUploaded: outcome = "uploaded"
                case .refresh: outcome = "refresh"
                case .retry: outcome = "retry"
                }
                try wc.journal(.init(lane: "logs", request: request, uuids: [], status: result.status,
                                     response: String(result.body.prefix(1024)), ms: result.milliseconds,
                                     attempt: attempt, outcome: outcome), redactor: redactor, storeBody: false)
                if action == .markUploaded { try wc.markUploaded(entries) }
            }
            switch action {
            case .markUploaded:
                logsUploaded += entries.count
                remaining -= entries.count
                failures = 0
                alreadyRefreshed = false
                attempt = 0
            case .refresh:
                guard try recover(refreshing: true, delay: machine.backoff(input), lane: "logs", remaining: remaining,
                                  status: result.status, failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            case .retry(let delay):
                guard try recover(refreshing: false, delay: delay, lane: "logs", remaining: remaining,
                                  status: result.status, failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            }
            if stopReason != nil { break }
            report("logs", remaining: remaining)
        }
        report("logs", remaining: remaining, force: true)
    }
}
