import BGeoForensics
import Foundation

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
    private let interrupt: InterruptSignal?
    /// What the dump alone lets a redactor know: secrets beyond it are kept in the working copy.
    private let dumpRedactor: Redactor

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
    /// The last failed attempt of this run, and whether the latest attempt was that failure.
    public private(set) var lastFailure: ResyncFailure?
    private var failing = false
    /// The last status a server answered (any, 2xx included).
    public private(set) var lastStatus: Int?
    /// The signal that stopped this run, when one did.
    public private(set) var interruptedBy: Int32?
    /// Redirect targets already explained this run (the sentence is said once per target).
    private var explainedRedirects: Set<String> = []

    /// `interrupt`: once it has received a signal the run stops before the next request or wait
    /// (a backoff wait ends early), with `interruptedBy` and `stopReason` set. `dumpRedactor`:
    /// the redactor built from the dump alone; secrets learned beyond it are kept in the working
    /// copy (default: `redactor`). `sleep` defaults to a wait that the interrupt cuts short.
    public init(workingCopy: WorkingCopy, settings: ResyncSettings, tokens: TokenRefresh.Tokens, options: ResyncOptions,
                transport: HTTPSending, redactor: Redactor, dumpRedactor: Redactor? = nil,
                interrupt: InterruptSignal? = nil,
                sleep: ((Double) -> Void)? = nil,
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
        self.dumpRedactor = dumpRedactor ?? redactor
        self.interrupt = interrupt
        self.sleep = sleep ?? { seconds in
            guard seconds > 0 else { return }
            if let interrupt { interrupt.sleep(seconds) } else { Thread.sleep(forTimeInterval: seconds) }
        }
        self.random = random
        self.clock = clock
        self.onEvent = onEvent
        start = clock()
    }

    private var bearer: String? { machine.authorizationConfigured ? tokens.accessToken : nil }
    private var elapsed: Double { clock() - start }

    /// True (and `stopReason` set) when the run must stop before the next request or wait.
    private func mustStop(failures: Int, waiting: Double = 0) -> Bool {
        if let signal = interrupt?.received {
            interruptedBy = signal
            stopReason = "interrupted by \(InterruptSignal.name(signal)); nothing is in flight (the last request was journaled)"
            return true
        }
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
                                         backoff: backoff, lastStatus: lastStatus, failing: failing ? lastFailure : nil)))
    }

    private func wait(_ delay: Double, lane: String, remaining: Int, failures: Int) -> Bool {
        if mustStop(failures: failures, waiting: delay) { return false }
        let what = lastFailure?.short ?? "failure"
        onEvent(.note(String(format: "%@: backing off %.2f s (failure %d in a row)", what, delay, failures)))
        report(lane, remaining: remaining, backoff: delay, force: true)
        sleep(delay)
        return true
    }

    /// Keeps what an answer says for the progress line and the summary, and explains a redirect
    /// (once per target): it is never followed, and the operator decides.
    private func observe(_ result: HTTPResult, lane: String, request: HTTPRequestSpec) {
        if result.status > 0 { lastStatus = result.status }
        guard let failure = ResyncFailure(lane: lane, request: request, result: result, redactor: redactor) else {
            failing = false
            return
        }
        lastFailure = failure
        failing = true
        if let advice = failure.redirectAdvice, explainedRedirects.insert(lane + " " + (failure.location ?? "")).inserted {
            onEvent(.note(advice))
        }
    }

    /// The journal's `error` text for a result without a response.
    static func errorText(_ result: HTTPResult) -> String? { result.failure.map(\.description) }

    /// True (and the stop recorded) when the request was abandoned because of a signal.
    private func abandoned(_ result: HTTPResult) -> Bool {
        guard result.failure?.kind == .interrupted else { return false }
        let signal = interrupt?.received ?? SIGINT
        interruptedBy = signal
        stopReason = "interrupted by \(InterruptSignal.name(signal)); the request in flight was abandoned "
            + "(journaled; its records stay queued and go again on the next run)"
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
                // Stored records go into the body as bytes (config extras merged as bytes); a
                // batch that needs the general path (a record merged into the root) is read again as text.
                var stored: [UInt8] = []
                stored.reserveCapacity(request.body.count + request.body.count / 4)
                guard let following = try? wc.nextBatch(after: last.id, limit: limit, appendingRecordsTo: &stored,
                                                        using: builder.appendStoredRecord), !following.isEmpty else { return }
                if let request = builder.locationRequest(storedRecords: stored, count: following.count, accessToken: token,
                                                         url: options.url) {
                    next = (following, request)
                } else if let texts = try? wc.nextBatch(after: last.id, limit: limit), !texts.isEmpty {
                    next = (texts, builder.locationRequest(texts.map { RequestBuilder.Record(uuid: $0.uuid, json: $0.json) },
                                                           accessToken: token, url: options.url))
                }
            }
            requests += 1
            observe(result, lane: "locations", request: request)
            if abandoned(result) {
                try wc.transaction {
                    try wc.journal(.init(lane: "locations", request: request, uuids: rows.map(\.uuid), status: 0, response: nil,
                                         ms: result.milliseconds, attempt: attempt, outcome: "interrupted",
                                         requestSHA256: bodySHA256, uuidsJSON: uuidsJSON, error: ResyncEngine.errorText(result)),
                                   redactor: redactor, storeBody: true)
                }
                break
            }
            let input = ResyncStateMachine.Input(status: result.status, batchCount: rows.count,
                                                 alreadyRefreshed: alreadyRefreshed, failures: failures,
                                                 retryAfter: result.retryAfter, attempts: rows.map(\.attempts),
                                                 jitterUnit: random())
            let action = machine.decide(input)
            let response = result.failure == nil ? String(result.body.prefix(1024)) : nil
            try wc.transaction {
                try wc.journal(.init(lane: "locations", request: request, uuids: rows.map(\.uuid), status: result.status,
                                     response: response, ms: result.milliseconds, attempt: attempt,
                                     outcome: ResyncEngine.name(action), requestSHA256: bodySHA256, uuidsJSON: uuidsJSON,
                                     error: ResyncEngine.errorText(result), location: result.location),
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
                                  failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            case .retry(let delay):
                guard try recover(refreshing: false, delay: delay, lane: "locations", remaining: remaining,
                                  failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            case .countAttempts(_, let drop, let delay):
                quarantinedThisRun += drop.count
                remaining -= drop.count
                failures += 1
                if !drop.isEmpty {
                    onEvent(.note("status \(result.status): quarantined \(drop.map { rows[$0].uuid }.joined(separator: ", ")) after the attempt limit"))
                }
                if remaining > 0 {
                    guard wait(delay, lane: "locations", remaining: remaining, failures: failures) else { break }
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
    private func recover(refreshing: Bool, delay: Double, lane: String, remaining: Int,
                         failures: inout Int, alreadyRefreshed: inout Bool) throws -> Bool {
        if refreshing, try refresh() {
            alreadyRefreshed = true
            return true
        }
        failures += 1
        alreadyRefreshed = false
        return wait(delay, lane: lane, remaining: remaining, failures: failures)
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
        observe(result, lane: "refresh", request: request)
        var rotated = (200...299).contains(result.status) ? TokenRefresh.parseResponse(result.body, previous: tokens) : nil
        // Whatever the answer holds under a secret-looking key is a secret from now on, even
        // when it is not adopted.
        if (200...299).contains(result.status), let parsed = try? JSONParser.parse(result.body) { redactor.learnSecrets(in: parsed) }
        if let rotated {
            for token in [rotated.accessToken, rotated.refreshToken].compactMap({ $0 }) { redactor.learn(secret: token) }
        }
        // A token that cannot be a header line is never adopted, stored or sent.
        let unusable = rotated?.accessToken.flatMap(HTTPHeader.forbiddenCharacter(inValue:))
        if unusable != nil { rotated = nil }
        // The journal never holds the refresh token or the new pair in clear.
        var journaled = request
        journaled.body = Array(redactor.redact(text: request.bodyText).utf8)
        let outcome = result.failure?.kind == .interrupted ? "interrupted"
            : (unusable != nil ? "refresh-rejected" : (rotated != nil ? "refreshed" : "refresh-failed"))
        try workingCopy.transaction {
            try workingCopy.journal(.init(lane: "refresh", request: journaled, uuids: [], status: result.status,
                                          response: result.failure == nil ? redactor.redact(text: String(result.body.prefix(1024))) : nil,
                                          ms: result.milliseconds, attempt: 1, outcome: outcome,
                                          error: ResyncEngine.errorText(result), location: result.location), redactor: redactor)
            try workingCopy.remember(secretsOf: redactor, beyond: dumpRedactor)
            if let rotated { try workingCopy.storeTokens(rotated) }
        }
        if let unusable {
            failedRefreshes += 1
            stopReason = "stopped: the token refresh issued an access token that cannot be sent"
            throw ResyncRefusal(description: "header 'Authorization': the access token issued by the token refresh at "
                + "\(redactor.redact(text: request.url)) contains \(HTTPHeader.describe(unusable)), which a header value cannot hold; "
                + "it was not adopted and nothing more was sent")
        }
        if let rotated {
            tokens = rotated
            onEvent(.note("token refreshed (status \(result.status)); access token now \(TokenFingerprint(rotated.accessToken ?? "").fingerprint)"))
            return true
        }
        failedRefreshes += 1
        let why = lastFailure.map { $0.status == 0 ? $0.short : "status \($0.status)" } ?? "status \(result.status), no access token in the answer"
        onEvent(.note("token refresh failed (\(why)); the batch stays queued"))
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
            observe(result, lane: "logs", request: request)
            if abandoned(result) {
                try wc.transaction {
                    try wc.journal(.init(lane: "logs", request: request, uuids: [], status: 0, response: nil, ms: result.milliseconds,
                                         attempt: attempt, outcome: "interrupted", error: ResyncEngine.errorText(result)),
                                   redactor: redactor, storeBody: false)
                }
                break
            }
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
                                     response: result.failure == nil ? String(result.body.prefix(1024)) : nil, ms: result.milliseconds,
                                     attempt: attempt, outcome: outcome, error: ResyncEngine.errorText(result),
                                     location: result.location), redactor: redactor, storeBody: false)
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
                                  failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            case .retry(let delay):
                guard try recover(refreshing: false, delay: delay, lane: "logs", remaining: remaining,
                                  failures: &failures, alreadyRefreshed: &alreadyRefreshed) else { break }
            }
            if stopReason != nil { break }
            report("logs", remaining: remaining)
        }
        report("logs", remaining: remaining, force: true)
    }
}
