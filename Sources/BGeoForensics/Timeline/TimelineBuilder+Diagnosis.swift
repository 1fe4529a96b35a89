import Foundation

extension TimelineBuilder {
    // MARK: gaps

    /// Every gap with its context: the diagnosis judges them all (a gap while moving must not
    /// hide behind the listing limit); only the listing is cut to `gapLimit`.
    func buildGaps() -> [TrackingGap] {
        let raw = coverage.gaps
        guard !raw.isEmpty else { return [] }
        let sorted = marks.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        let window = options.contextWindow
        var gaps: [TrackingGap] = []
        for raw in raw {
            var before = raw.before
            var after = raw.after
            func complete(_ fix: CoverageMap.Fix) -> CoverageMap.Fix {
                guard fix.moving == nil || fix.latitude == nil else { return fix }
                return fix.logRow != nil ? dump.completeLogFix(fix) : (fix.queueRow != nil ? dump.completeQueueFix(fix) : fix)
            }
            before = complete(before)
            after = complete(after)
            let start = before.time
            let end = after.time
            // The motion state at the gap's start: the last motion mark up to start + window.
            var motionState: GapContextEvent.Kind?
            var i = firstIndex(sorted, atOrAfter: start + window) - 1
            while i >= 0, motionState == nil {
                switch sorted[i].kind {
                case .stationary, .motionStationary, .motionMoving, .regionExit: motionState = sorted[i].kind
                default: break
                }
                i -= 1
            }
            var context: [GapContextEvent] = []
            var j = firstIndex(sorted, atOrAfter: start - window)
            while j < sorted.count, sorted[j].at <= end + window {
                let mark = sorted[j]
                let position: GapContextEvent.Position = mark.at < start ? .before : (mark.at > end ? .after : .inside)
                context.append(GapContextEvent(kind: mark.kind, at: mark.at, logId: mark.logId,
                                               detail: mark.detail.map { redactor.redact(text: $0) }, position: position))
                j += 1
            }
            context = TimelineBuilder.boundContext(context)
            let distance = CoverageMap.distance(before, after)
            let stationary = before.moving == false || motionState == .stationary || motionState == .motionStationary
            // Stationary but resumed far away: the device moved while nothing was recorded.
            let stayed = distance.map { $0 < TimelineBuilder.movedDistance } ?? true
            gaps.append(TrackingGap(start: start, end: end, movingAtStart: before.moving, distanceMeters: distance,
                                    contextEvents: context, expected: stationary && stayed))
        }
        return gaps
    }

    /// Fixes this far apart across a gap mean the device moved during it (GPS drift and a
    /// stationary geofence are a few hundred metres).
    static let movedDistance = 1000.0

    private func firstIndex(_ marks: [ContextMark], atOrAfter time: Double) -> Int {
        var low = 0
        var high = marks.count
        while low < high {
            let mid = (low + high) / 2
            if marks[mid].at < time { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// At most 20 context events: lifecycle and motion first, then the rest in time order.
    static func boundContext(_ events: [GapContextEvent]) -> [GapContextEvent] {
        guard events.count > 20 else { return events }
        let important: Set<GapContextEvent.Kind> = [.relaunch, .sessionStart, .stationary, .motionStationary,
                                                    .motionMoving, .regionExit]
        var keep = events.filter { important.contains($0.kind) }.prefix(20).map { $0 }
        for event in events where keep.count < 20 && !important.contains(event.kind) { keep.append(event) }
        return keep.sorted { $0.at < $1.at }
    }

    // MARK: findings

    func diagnose(gaps: [TrackingGap]) -> [Finding] {
        var findings: [Finding] = []
        let state = dump.engineState()
        let stats = tracker.stats
        let end = lastAt ?? newestPending ?? 0
        var stateNotes: [String] = []
        if let failures = state.httpFailures { stateNotes.append("state http.failures = \(failures)") }
        if let next = state.nextAttemptAt { stateNotes.append("state http.next_attempt_at = \(next)") }
        let tokenNote = accessTokenNote(state)

        // queue.stranded
        if pendingRecords > 0, stats.trailingFailures > 0, let since = stats.trailingSince {
            let span = max(end, stats.lastAttemptAt ?? since.at) - since.at
            let stuck = stats.trailingFailures >= 3 && span >= 300
            var summary = "\(pendingRecords) record\(pendingRecords == 1 ? " is" : "s are") waiting in the upload queue"
            if let oldest = oldestPending { summary += " (the oldest recorded \(time(oldest.time)))" }
            summary += stuck ? " and not draining: " : "; uploads are currently failing: "
            summary += "every upload since \(time(since.at)) failed (\(stats.trailingFailures) attempt\(stats.trailingFailures == 1 ? "" : "s"), \(statusList(stats.trailingStatuses)))"
            let cause = strandedCause(stats)
            summary += ". Why: " + cause.reason + "."
            summary += stats.lastSuccess.map { " Last successful upload: \(time($0.at)) (row \($0.row))." }
                ?? " No successful upload is recorded in this log."
            var evidence = [Evidence(note: "failing responses since the last 2xx", logIds: stats.trailingRows,
                                     uuids: pendingUuids)]
            for note in stateNotes { evidence.append(Evidence(note: note)) }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            // Only network errors: the device is offline, the queue waits for it by design.
            let offline = Set(stats.trailingStatuses.keys) == [0]
            if offline, stuck { summary += " The records are safe in the queue and upload once the device is back online." }
            findings.append(Finding(code: "queue.stranded", severity: stuck ? (offline ? .warning : .error) : .info,
                                    summary: summary, evidence: evidence, responsible: cause.responsible, action: cause.action).spanning(since.at, stats.lastAttemptAt ?? end))
        }

        // queue.stranded from the state alone, when the log holds no upload rows (logLevel
        // below info keeps only errors and warnings).
        if pendingRecords > 0, tracker.totalAttempts == 0, let failures = state.httpFailures, failures >= 3 {
            var summary = "\(pendingRecords) records are waiting in the upload queue"
            if let oldest = oldestPending { summary += " (the oldest recorded \(time(oldest.time)))" }
            summary += " and the engine's state counts \(failures) consecutive failed uploads"
            if let next = state.nextAttemptAt { summary += ", next attempt at \(next)" }
            summary += ". The log holds no upload rows (logLevel below info?), so the failing status is not recorded: raise logLevel to 3 or more to see it."
            var evidence = [Evidence(note: "pending records", uuids: pendingUuids.values)]
            for note in stateNotes { evidence.append(Evidence(note: note)) }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            findings.append(Finding(code: "queue.stranded", severity: .error, summary: summary, evidence: evidence,
                                    responsible: .unknown,
                                    action: "Raise logLevel to 3 (info) or more so the next dump records the failing uploads' status; meanwhile check the url and credentials in the app's config.").spanning(oldestPending?.time, lastAt ?? newestPending))
        }

        // auth.refresh_failing
        if stats.refreshFailures > 0 {
            // Still failing unless an upload got through after the last failed refresh
            // (new tokens arrived another way, e.g. setConfig after a sign-in).
            let recoveredByUpload = stats.lastSuccess.map { $0.at >= (stats.lastRefreshAt ?? .infinity) } ?? false
            let ongoing = stats.lastRefreshSucceeded == false && !recoveredByUpload
            var summary: String
            let refreshCause = refreshFailureCause(stats.refreshFailingStatuses.isEmpty ? [0: 1] : stats.refreshFailingStatuses)
            if ongoing, let since = stats.refreshFailingSince {
                summary = "The token refresh has failed \(stats.refreshFailingCount) time\(stats.refreshFailingCount == 1 ? "" : "s") in a row since \(time(since.at)) (refresh status \(statusList(stats.refreshFailingStatuses))). \(refreshCause.reason), so every upload keeps getting 401/403 and the queue will not drain until that is fixed."
            } else {
                summary = "The token refresh failed \(stats.refreshFailures) time\(stats.refreshFailures == 1 ? "" : "s") (\(stats.refreshSuccesses) successful refresh\(stats.refreshSuccesses == 1 ? "" : "es")), but uploads got through afterwards."
            }
            if let tokenNote { summary += " " + tokenNote.prefix(1).uppercased() + tokenNote.dropFirst() + "." }
            var evidence = [Evidence(note: ongoing ? "failed auth.refresh.result rows since the last success" : nil,
                                     logIds: stats.refreshFailingRows)]
            for note in stateNotes { evidence.append(Evidence(note: note)) }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            findings.append(Finding(code: "auth.refresh_failing", severity: ongoing ? .error : .info, summary: summary,
                                    evidence: evidence, responsible: ongoing ? refreshCause.responsible : .expected,
                                    action: ongoing ? refreshCause.action : "Nothing now: uploads recovered. If it recurs, see why the refresh server refused the failed refreshes.").spanning(ongoing ? stats.refreshFailingSince?.at : nil, ongoing ? stats.lastRefreshAt : nil))
        }

        // auth.no_refresh
        if stats.unauthorizedWithoutAuth > 0 {
            let ongoing = stats.lastStatus.map { policy.refresh.triggerStatuses.contains($0) } ?? false
            var summary = "The server answered \(statusList(stats.unauthorizedStatuses)) to location uploads"
            if let first = stats.unauthorizedFirst, let last = stats.unauthorizedLast {
                summary += first == last ? " at \(time(first))" : " between \(time(first)) and \(time(last))"
            }
            let action: String
            switch refreshReadiness {
            case .incomplete(let missing):
                let lacks = missing.joined(separator: " and ")
                summary += ". The app configured an authorization without \(lacks), so the engine cannot refresh the token: as documented, each 401/403 is retried after the normal backoff with the same, rejected credentials. This is the app's configuration, not an engine fault."
                action = "Fix the app's authorization config: give it \(missing.map { $0 == "refreshUrl" ? "a refreshUrl (the auth server's refresh endpoint)" : "a refreshToken" }.joined(separator: " and ")), or have the app call setConfig with a valid accessToken."
            default:
                summary += ", but no authorization (token refresh) is configured, so the SDK cannot refresh the token: it keeps retrying with the same credentials."
                action = "Give the app valid credentials (headers or authorization.accessToken), or configure authorization with a refreshUrl and refreshToken so the engine can refresh on its own."
            }
            summary += ongoing ? " The latest upload still failed this way: the queue will not drain until the app sets valid credentials." : " Later uploads got through."
            var evidence = [Evidence(note: "401/403 responses", logIds: stats.unauthorizedRows)]
            if case .incomplete(let missing) = refreshReadiness {
                evidence.append(Evidence(note: "\(configSource.description): authorization has no \(missing.joined(separator: ", "))"))
            }
            if let tokenNote { evidence.append(Evidence(note: tokenNote)) }
            findings.append(Finding(code: "auth.no_refresh", severity: ongoing ? .error : .warning, summary: summary,
                                    evidence: evidence, responsible: .appConfig, action: action).spanning(stats.unauthorizedFirst, stats.unauthorizedLast))
        }

        // poison.dropped
        if stats.dropRows.count > 0 {
            let n = stats.droppedRecords
            let allPoison = stats.dropStatuses.keys.allSatisfy { !PolicyRules(policy: policy).dropIsViolation(status: $0, authorizationConfigured: authorizationConfigured) }
            var summary = "\(n) record\(n == 1 ? " was" : "s were") dropped from the queue" + (allPoison ? " as poison" : "")
            if !stats.dropStatuses.isEmpty { summary += " (server status \(statusList(stats.dropStatuses)))" }
            if let first = stats.dropFirst, let last = stats.dropLast {
                summary += first == last ? " at \(time(first))" : " between \(time(first)) and \(time(last))"
            }
            summary += ". These fixes never reached the server and are gone from the device: "
            summary += stats.dropUuids.values.prefix(5).joined(separator: ", ") + (stats.dropUuids.count > 5 ? " …" : "") + "."
            summary += allPoison
                ? " The server rejected them as permanently invalid and the engine dropped them as its policy documents."
                : " Some drops followed a status the policy retries: see policy.violation."
            findings.append(Finding(code: "poison.dropped", severity: .warning, summary: summary,
                                    evidence: [Evidence(note: "queue.drop rows", logIds: stats.dropRows, uuids: stats.dropUuids)],
                                    responsible: allPoison ? .server : .engine,
                                    action: allPoison
                                        ? "Read the server's response to these records (the http.response rows before each drop) and fix its validation or the app's data; the dropped fixes survive only in the location log lines."
                                        : "Report the drop after a retryable status to the SDK maintainers with these rows; the dropped fixes survive only in the location log lines.").spanning(stats.dropFirst, stats.dropLast))
        }

        // policy.violation
        var violations = tracker.violations
        // The state is the engine's at the moment of the dump: only comparable with the whole log.
        if options.until == nil, let lastSuccess = stats.lastSuccess, stats.lastStatus.map({ (200...299).contains($0) }) == true,
           let failures = state.httpFailures, failures > 0 {
            violations.add(.successNoReset,
                           "the last upload succeeded (row \(lastSuccess.row)) but the dump's state still says http.failures = \(failures)",
                           logIds: [lastSuccess.row])
        }
        // The queue's attempt counters are the engine's state at the moment of the dump.
        if options.until == nil, queueAttempts.overLimitUUIDs.count > 0, let limit = policy.maxAttemptsBeforeDrop {
            let n = queueAttempts.overLimitUUIDs.count
            violations.add(.keptAfterAttempts,
                           "\(n) record\(n == 1 ? " is" : "s are") still queued with \(limit) or more counted attempts (up to \(queueAttempts.highest))",
                           logIds: [], uuids: queueAttempts.overLimitUUIDs.values)
        }
        for rule in PolicyRule.allCases {
            guard let list = violations.lists[rule] else { continue }
            let n = list.total
            var summary = "The engine broke its \(policy.engine.rawValue) upload policy \(n == 1 ? "once" : "\(n) times"): \(rule.statement)."
            if let first = violations.first[rule] { summary += " " + (n == 1 ? "Here: " : "First: ") + first + "." }
            let sdk = state.device?.valueIgnoringCase("sdk")?.stringValue.map { " (SDK \($0))" } ?? ""
            findings.append(Finding(code: "policy.violation", severity: rule.severity, summary: summary,
                                    evidence: list.items, rule: rule.rawValue, omittedEvidence: list.omitted,
                                    responsible: .engine,
                                    action: "Neither the app's config nor the server explains this: report it to the \(policy.engine.productName) SDK maintainers\(sdk) with these log rows and the dump's SHA-256."))
        }

        // queue.attempts: records one or two 4xx answers away from deletion.
        if options.until == nil, queueAttempts.triedRecords > 0, let limit = policy.maxAttemptsBeforeDrop {
            let tried = queueAttempts.triedRecords
            let atBrink = queueAttempts.recordsByAttempts[limit - 1] ?? 0
            var summary = "\(tried) queued record\(tried == 1 ? " was" : "s were") already answered by a non-retryable 4xx "
            summary += "(the queue's attempts column): \(queueAttempts.levelsText(limit: limit)). "
            summary += "\(policy.engine.productName) deletes a record at its \(Self.ordinal(limit)) such answer"
            summary += atBrink > 0 ? ", so one more for a batch holding them deletes up to \(atBrink) record\(atBrink == 1 ? "" : "s")." : "."
            findings.append(Finding(code: "queue.attempts", severity: .warning, summary: summary,
                                    evidence: [Evidence(note: "the records with the most attempts (\(queueAttempts.highest))",
                                                        logIds: [], uuids: queueAttempts.highestUUIDs.values)],
                                    responsible: .server,
                                    action: "Find out why the server rejects these records (its 4xx answers) and fix that, or re-send them with `resync` before the next rejection deletes them."))
        }

        // queue.pruned
        for reason in prunes.keys.sorted() {
            guard let tally = prunes[reason] else { continue }
            let limit = reason == "maxRecords"
                ? recordedConfig.int("maxRecordsToPersist").map { " (maxRecordsToPersist = \($0))" } ?? ""
                : recordedConfig.int("maxDaysToPersist").map { " (maxDaysToPersist = \($0))" } ?? " (engine default: 2 days)"
            var summary = "\(tally.records) record\(tally.records == 1 ? " was" : "s were") evicted from the queue by \(reason)\(limit)"
            if let first = tally.first, let last = tally.last {
                summary += first == last ? " at \(time(first))" : " in \(tally.count) prunes between \(time(first)) and \(time(last))"
            }
            let stalled = stats.trailingFailures > 0 && (stats.trailingSince?.at ?? .infinity) <= (tally.first ?? 0)
            let appLimit = reason == "maxRecords" ? recordedConfig.int("maxRecordsToPersist") != nil : recordedConfig.int("maxDaysToPersist") != nil
            summary += ". Data loss: these fixes were never uploaded. The eviction itself is the documented persistence limit"
            summary += appLimit ? " the app configured" : " (engine default)"
            summary += stalled ? "; the queue reached it because uploads were failing (see queue.stranded)." : "; uploads did not keep the queue below it."
            findings.append(Finding(code: "queue.pruned", severity: .warning, summary: summary,
                                    evidence: [Evidence(note: "queue.prune rows", logIds: tally.rows)],
                                    responsible: stalled ? strandedCause(stats).responsible : (appLimit ? .appConfig : .expected),
                                    action: (stalled ? "Fix what stops the uploads first (queue.stranded). " : "")
                                        + "Recover the evicted fixes from the location log lines if they matter; raise \(reason == "maxRecords" ? "maxRecordsToPersist" : "maxDaysToPersist") in the app's config if the device must hold more while offline.").spanning(tally.first, tally.last))
        }

        // sync.deferred
        for reason in deferrals.keys.sorted() {
            guard let tally = deferrals[reason] else { continue }
            let explanation: String
            var severity = Severity.info
            var action: String
            switch reason {
            case "cellular":
                explanation = "disableAutoSyncOnCellular holds uploads back while the phone is on cellular; they drain on Wi-Fi or ethernet"
                action = "Nothing, if uploads on Wi-Fi only are intended; otherwise set disableAutoSyncOnCellular to false in the app's config."
            case "threshold":
                explanation = "autoSyncThreshold\(recordedConfig.int("autoSyncThreshold").map { " (\($0))" } ?? "") holds uploads back until enough records are queued"
                action = "Nothing, if batching is intended; lower autoSyncThreshold in the app's config for fresher uploads."
            case "no_url":
                explanation = "no url is configured, so the SDK runs persist-only and uploads nothing"
                action = "Set url in the app's config (or call sync() from the app) if these fixes should reach the server."
                if pendingRecords > 0 { severity = .warning }
            default:
                explanation = "reason '\(reason)'"
                action = "See the sync.deferred rows for what held the uploads back."
            }
            var summary = "Uploads were deferred \(tally.count) time\(tally.count == 1 ? "" : "s")"
            if let first = tally.first, let last = tally.last {
                summary += first == last ? " at \(time(first))" : " between \(time(first)) and \(time(last))"
            }
            summary += ": \(explanation)."
            if let pending = tally.lastPending { summary += " Last seen with \(pending) record\(pending == 1 ? "" : "s") pending." }
            findings.append(Finding(code: "sync.deferred", severity: severity, summary: summary,
                                    evidence: [Evidence(note: "sync.deferred rows (\(reason))", logIds: tally.rows)],
                                    responsible: ["cellular", "threshold", "no_url"].contains(reason) ? .appConfig : .unknown,
                                    action: action).spanning(tally.first, tally.last))
        }
        if deferrals["no_url"] == nil, pendingRecords > 0, tracker.totalAttempts == 0,
           (recordedConfig.string("url") ?? "").isEmpty, case .state = configSource {
            findings.append(Finding(code: "sync.deferred", severity: .warning,
                                    summary: "\(pendingRecords) records are queued and no upload was ever attempted: the recorded config has no url, so the SDK runs persist-only.",
                                    evidence: [Evidence(note: "state.config has no url", uuids: pendingUuids.values)],
                                    responsible: .appConfig,
                                    action: "Set url in the app's config (or call sync() from the app) if these fixes should reach the server."))
        }

        // tracking.gap: gaps while moving one by one (up to 10); stationary ones summed up.
        let unexpected = gaps.filter { !$0.expected }
        for gap in unexpected.prefix(10) { findings.append(gapFinding(gap)) }
        if unexpected.count > 10 {
            let rest = unexpected.dropFirst(10)
            findings.append(Finding(code: "tracking.gap", severity: .warning,
                                    summary: "\(rest.count) more tracking gaps while moving, the longest \(DurationFormat.short(rest.map(\.seconds).max() ?? 0)); see the gaps list.",
                                    evidence: [Evidence(note: "first context rows", logIds: rest.flatMap { $0.contextEvents.map(\.logId) })],
                                    responsible: .unknown,
                                    action: "Read each gap's context in the gaps list (relaunches, motion changes) and check location permission and battery optimisation on the device.").spanning(rest.map(\.start).min(), rest.map(\.end).max()))
        }
        // A stationary gap during which the process was killed and relaunched is still worth
        // its own line: the relaunch is what support will be asked about.
        let relaunched = gaps.filter { $0.expected && $0.contextEvents.contains { $0.kind == .relaunch && $0.position == .inside } }
        for gap in relaunched.prefix(10) { findings.append(gapFinding(gap)) }
        let expected = gaps.filter { gap in gap.expected && !relaunched.prefix(10).contains(gap) }
        if expected.count == 1, let gap = expected.first {
            findings.append(gapFinding(gap))
        } else if expected.count > 1 {
            let longest = expected.map(\.seconds).max() ?? 0
            let total = expected.map(\.seconds).reduce(0, +)
            findings.append(Finding(code: "tracking.gap", severity: .info,
                                    summary: "\(expected.count) gaps while the device was stationary (\(DurationFormat.short(total)) in all, the longest \(DurationFormat.short(longest))): expected, the engine stops GPS until the stationary geofence is exited. First: \(time(expected[0].start)) → \(time(expected[0].end)).",
                                    evidence: [Evidence(note: "stationary and region-exit rows",
                                                        logIds: expected.flatMap { $0.contextEvents.filter { [.stationary, .motionStationary, .regionExit].contains($0.kind) }.map(\.logId) })],
                                    responsible: .expected, action: "Nothing: this is how the engine saves battery while the device stands still.").spanning(expected.map(\.start).min(), expected.map(\.end).max()))
        }

        // Most severe first; ties keep the order above.
        return findings.enumerated().sorted { ($0.element.severity, -$0.offset) > ($1.element.severity, -$1.offset) }.map(\.element)
    }

    private func gapFinding(_ gap: TrackingGap) -> Finding {
        var summary = "No fixes for \(DurationFormat.short(gap.seconds)) (\(time(gap.start)) → \(time(gap.end)))"
        let moved = gap.distanceMeters.map { $0 >= TimelineBuilder.movedDistance } ?? false
        if gap.expected {
            summary += " while the device was stationary: expected, the engine stops GPS until the stationary geofence is exited."
        } else if moved, let distance = gap.distanceMeters {
            summary += ": the device moved \(TimelineBuilder.distanceText(distance)) meanwhile (the next fix is that far from the last one)"
            summary += gap.movingAtStart == true ? ", and it was moving when the fixes stopped." : ", but nothing was recorded on the way."
        } else {
            summary += gap.movingAtStart == true ? " although the device was moving." : "."
        }
        let relaunch = gap.contextEvents.first { $0.kind == .relaunch && $0.position != .before }
        if let relaunch {
            let how = relaunch.detail.map { " (reason: \($0))" } ?? ""
            summary += gap.expected
                ? " Meanwhile the app process was killed; the engine relaunched at \(time(relaunch.at))\(how) (row \(relaunch.logId)) and tracking resumed as designed."
                : " The app process was killed and relaunched at \(time(relaunch.at))\(how) (row \(relaunch.logId)): tracking was down until then."
        }
        let described = gap.contextEvents.prefix(6).map { event in
            "\(event.kind.rawValue)\(event.detail.map { " (\($0))" } ?? "") at \(time(event.at)) [\(event.position.rawValue)]"
        }
        if !described.isEmpty { summary += " Around it: " + described.joined(separator: "; ") + "." }
        else if !gap.expected { summary += " The log shows no engine event around it (no relaunch, motion change or region exit)." }
        let responsible: Responsibility
        let action: String
        if gap.expected {
            responsible = .expected
            action = relaunch == nil ? "Nothing: this is how the engine saves battery while the device stands still."
                : "Nothing to fix in the engine; if relaunches are frequent, check the OS's battery optimisation for the app."
        } else if relaunch != nil {
            responsible = .device
            action = "The OS killed the app: ask the user to exclude it from battery optimisation and keep location access set to Always."
        } else {
            responsible = .unknown
            action = "Check location permission, battery optimisation and the app's own stop()/start() calls around this time (app log lines)."
        }
        return Finding(code: "tracking.gap", severity: gap.expected ? .info : .warning, summary: summary,
                       evidence: [Evidence(note: "context events", logIds: gap.contextEvents.map(\.logId))],
                       responsible: responsible, action: action).spanning(gap.start, gap.end)
    }

    /// "850 m", "27.3 km".
    static func distanceText(_ metres: Double) -> String {
        guard metres.isFinite else { return "? m" }
        return metres < 1000 ? "\(Int(clamping: metres + 0.5, to: Int.min...Int.max)) m" : String(format: "%.1f km", metres / 1000)
    }

    /// Why a queue is stuck, who is to blame and what to do, from the failing statuses since
    /// the last 2xx: the most frequent class of failure names the party.
    struct Cause {
        var reason: String
        var responsible: Responsibility
        var action: String
    }

    func strandedCause(_ stats: UploadTracker.Stats) -> Cause {
        var causes: [(count: Int, cause: Cause)] = []
        let statuses = stats.trailingStatuses
        let unauthorized = (statuses[401] ?? 0) + (statuses[403] ?? 0)
        if unauthorized > 0 {
            if !authorizationConfigured {
                let reason: String
                if case .incomplete(let missing) = refreshReadiness {
                    reason = "the server rejects the credentials (401/403) and the app's authorization has no \(missing.joined(separator: " or ")), so the engine cannot refresh them"
                } else {
                    reason = "the server rejects the credentials (401/403) and no token refresh is configured"
                }
                causes.append((unauthorized, Cause(reason: reason, responsible: .appConfig,
                                                   action: "Fix the app's credentials or its authorization config (see auth.no_refresh).")))
            } else if stats.lastRefreshSucceeded == false {
                let refresh = stats.refreshFailingStatuses.isEmpty ? "" : " (refresh status \(statusList(stats.refreshFailingStatuses)))"
                let cause = refreshFailureCause(stats.refreshFailingStatuses.isEmpty ? [0: 1] : stats.refreshFailingStatuses)
                causes.append((unauthorized, Cause(
                    reason: "the access token is rejected (401/403) and the token refresh keeps failing\(refresh), so the queue cannot drain until the app is given new tokens",
                    responsible: cause.responsible, action: cause.action)))
            } else {
                causes.append((unauthorized, Cause(reason: "the server rejects the access token (401/403) even after refreshing it",
                                                   responsible: .server,
                                                   action: "Check why the server refuses the token its own refresh endpoint just issued (audience, clock, revocation).")))
            }
        }
        let network = statuses[0] ?? 0
        if network > 0 {
            causes.append((network, Cause(
                reason: "network errors (no response)" + (connected == false ? "; the device was offline at the last connectivity change" : ""),
                responsible: .device,
                action: "Nothing to fix in the app: the records are safe and upload when the device is back online (if it is online, check the server is reachable from its network).")))
        }
        let server = statuses.filter { (500...599).contains($0.key) }.values.reduce(0, +)
        if server > 0 {
            causes.append((server, Cause(reason: "server errors (5xx)", responsible: .server,
                                         action: "Fix the ingest server (its logs at these times); the records are kept and retried.")))
        }
        let throttled = statuses[429] ?? 0
        if throttled > 0 {
            causes.append((throttled, Cause(reason: "the server is throttling (429)", responsible: .server,
                                            action: "Raise the server's rate limit for this device, or batch uploads (batchSync) in the app's config.")))
        }
        let other = statuses.filter { ![0, 401, 403, 429].contains($0.key) && !(500...599).contains($0.key) }
        if !other.isEmpty {
            causes.append((other.values.reduce(0, +), Cause(reason: "other responses (\(statusList(other)))", responsible: .server,
                                                             action: "Read the server's responses (http.response rows) to see why it refuses these uploads.")))
        }
        guard let primary = causes.enumerated().max(by: { ($0.element.count, -$0.offset) < ($1.element.count, -$1.offset) })?.element.cause else {
            return Cause(reason: "uploads keep failing", responsible: .unknown, action: "Read the http.response rows for the failing status.")
        }
        return Cause(reason: causes.map(\.cause.reason).joined(separator: "; "), responsible: primary.responsible, action: primary.action)
    }

    /// Why token refreshes fail, from the statuses the refresh request itself got: a refresh
    /// token the auth server no longer accepts (401/403, or 400 after refreshes that used to
    /// work: OAuth servers answer a revoked token with 400 invalid_grant), a request it never
    /// accepted (400/422 with no refresh ever succeeding: the app's refreshPayload or
    /// refreshHeaders first), its own errors (5xx) or no network (0).
    func refreshFailureCause(_ statuses: [Int: Int]) -> Cause {
        let total = statuses.values.reduce(0, +)
        let rejected = (statuses[401] ?? 0) + (statuses[403] ?? 0)
        let malformed = (statuses[400] ?? 0) + (statuses[422] ?? 0)
        let serverErrors = statuses.filter { (500...599).contains($0.key) }.values.reduce(0, +)
        let everSucceeded = tracker.stats.refreshSuccesses > 0
        let newTokens = "Give the app new tokens: the user signs in again, or the app calls setConfig with a fresh authorization"
        if rejected > 0 || (malformed == total && everSucceeded) {
            return Cause(reason: "The auth server (refreshUrl) rejects the stored refresh token (revoked or expired)",
                         responsible: .server,
                         action: newTokens + "; if the refresh token should still be valid, check the auth server's logs at these rows.")
        }
        if malformed == total {
            return Cause(reason: "The auth server (refreshUrl) refuses every refresh request as invalid (\(statusList(statuses))) and no refresh in this log ever succeeded, so the request the app configured is the first suspect",
                         responsible: .appConfig,
                         action: "Check the app's authorization.refreshPayload and refreshHeaders against what the auth server expects (the payload must carry {refreshToken}); if they match, the refresh token was revoked: " + newTokens.prefix(1).lowercased() + newTokens.dropFirst() + ".")
        }
        if serverErrors == total {
            return Cause(reason: "The auth server (refreshUrl) fails with server errors (\(statusList(statuses)))", responsible: .server,
                         action: "Fix the auth server; the engine keeps retrying and the records stay queued.")
        }
        if (statuses[0] ?? 0) == total {
            return Cause(reason: "The refresh request gets no response (network error)", responsible: .device,
                         action: "Check that the device can reach the refreshUrl; the records stay queued.")
        }
        return Cause(reason: "The auth server (refreshUrl) rejects the refresh request (\(statusList(statuses)))", responsible: .server,
                     action: "Read the auth server's answer at these rows and give the app tokens it accepts.")
    }

    /// "401 ×37, 0 ×2" (most frequent first).
    func statusList(_ statuses: [Int: Int]) -> String {
        statuses.sorted { ($0.value, -$0.key) > ($1.value, -$1.key) }
            .map { $0.value == 1 ? String($0.key) : "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }

    func time(_ t: Double) -> String { Timestamp.format(t, milliseconds: false) }

    /// "the access token expired at …" from the JWT's exp claim (never the token itself).
    private func accessTokenNote(_ state: EngineState) -> String? {
        let token = state.auth?.valueIgnoringCase("accessToken")?.stringValue
            ?? recordedConfig["authorization"]?.objectValue?.valueIgnoringCase("accessToken")?.stringValue
        guard let token, let exp = JWT.expiry(token) ?? state.sanitized?.expiry(ofToken: token) else { return nil }
        let reference = lastAt ?? exp
        return exp <= reference
            ? "the stored access token expired at \(time(exp)), before the last log row (\(time(reference)))"
            : "the stored access token is valid until \(time(exp))"
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
}
