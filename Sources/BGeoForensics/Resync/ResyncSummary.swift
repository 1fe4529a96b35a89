/// The end of a run, for the operator (text) and for scripts (`--json`).
public struct ResyncSummary: Sendable {
    public var workingCopy: String
    /// True for a `--logs` run: the exit code then follows the pending log rows.
    public var logLane: Bool
    public var dumpSHA256: String
    public var policy: String
    /// Delivered this run / over every run of this working copy.
    public var delivered: Int
    public var deliveredTotal: Int
    public var quarantinedThisRun: Int
    public var quarantined: [WorkingCopy.QuarantinedRecord]
    public var remaining: Int
    public var logsUploaded: Int
    public var logsPending: Int
    public var requests: Int
    public var refreshes: Int
    public var failedRefreshes: Int
    public var seconds: Double
    /// Time spent draining (requests, responses, commits) without the setup and the final
    /// evidence re-hash that `seconds` includes: the figure to compare with another client.
    public var drainSeconds: Double?
    public var stopReason: String?
    public var tokens: TokenRefresh.Tokens
    /// True when the evidence hash was re-checked after the run and still matched.
    public var evidenceUnchanged: Bool

    public init(workingCopy: String, logLane: Bool = false, dumpSHA256: String, policy: String, delivered: Int, deliveredTotal: Int,
                quarantinedThisRun: Int, quarantined: [WorkingCopy.QuarantinedRecord], remaining: Int, logsUploaded: Int,
                logsPending: Int, requests: Int, refreshes: Int, failedRefreshes: Int, seconds: Double,
                stopReason: String?, tokens: TokenRefresh.Tokens, evidenceUnchanged: Bool) {
        self.workingCopy = workingCopy
        self.logLane = logLane
        self.dumpSHA256 = dumpSHA256
        self.policy = policy
        self.delivered = delivered
        self.deliveredTotal = deliveredTotal
        self.quarantinedThisRun = quarantinedThisRun
        self.quarantined = quarantined
        self.remaining = remaining
        self.logsUploaded = logsUploaded
        self.logsPending = logsPending
        self.requests = requests
        self.refreshes = refreshes
        self.failedRefreshes = failedRefreshes
        self.seconds = seconds
        self.stopReason = stopReason
        self.tokens = tokens
        self.evidenceUnchanged = evidenceUnchanged
    }

    /// Exit code: 0 when the lane's queue (records, or log rows for `--logs`) is empty, else 3.
    public var exitCode: Int32 { (logLane ? logsPending : remaining) == 0 ? 0 : 3 }

    private func shown(_ token: String?, _ redactor: Redactor) -> JSONValue {
        guard let token else { return .null }
        return .string(redactor.enabled ? TokenFingerprint(token).fingerprint : token)
    }

    public func json(redactor: Redactor) -> JSONValue {
        [
            "workingCopy": .string(workingCopy), "lane": .string(logLane ? "logs" : "locations"), "dumpSha256": .string(dumpSHA256), "policy": .string(policy),
            "delivered": .int(Int64(delivered)), "deliveredTotal": .int(Int64(deliveredTotal)),
            "quarantinedThisRun": .int(Int64(quarantinedThisRun)),
            "quarantined": .array(quarantined.map { $0.json(redactor: redactor) }),
            "remaining": .int(Int64(remaining)), "logsUploaded": .int(Int64(logsUploaded)),
            "logsPending": .int(Int64(logsPending)), "requests": .int(Int64(requests)),
            "refreshes": .int(Int64(refreshes)), "failedRefreshes": .int(Int64(failedRefreshes)),
            "seconds": .double((seconds * 1000).rounded() / 1000),
            "drainSeconds": .from(drainSeconds.map { ($0 * 1_000_000).rounded() / 1_000_000 }), "stopReason": .from(stopReason),
            "auth": ["accessToken": shown(tokens.accessToken, redactor), "refreshToken": shown(tokens.refreshToken, redactor)],
            "evidenceUnchanged": .bool(evidenceUnchanged), "exitCode": .int(Int64(exitCode)),
        ]
    }

    public func text(redactor: Redactor) -> String {
        var lines = [
            "Re-sync of dump sha256 \(dumpSHA256.prefix(16))… (policy \(policy)), working copy \(workingCopy)",
            "  delivered:   \(delivered) this run (\(deliveredTotal) in total)",
            "  quarantined: \(quarantined.count) in total (\(quarantinedThisRun) this run)",
            "  remaining:   \(remaining)",
        ]
        if logLane || logsUploaded > 0 { lines.append("  log rows:    \(logsUploaded) uploaded, \(logsPending) pending") }
        lines.append("  requests:    \(requests), token refreshes: \(refreshes) (\(failedRefreshes) failed)")
        lines.append(String(format: "  time:        %.2f s", seconds))
        if tokens.accessToken != nil || tokens.refreshToken != nil {
            let access = shown(tokens.accessToken, redactor).stringValue ?? "none"
            let refresh = shown(tokens.refreshToken, redactor).stringValue ?? "none"
            lines.append("  auth now:    access \(access), refresh \(refresh)")
        }
        lines.append("  evidence:    " + (evidenceUnchanged ? "unchanged (sha256 re-checked)" : "CHANGED OR UNREADABLE after the run"))
        if let stopReason { lines.append("  \(stopReason)") }
        if !quarantined.isEmpty {
            lines.append("Quarantine (export with --export-quarantine FILE.ndjson):")
            for record in quarantined.prefix(50) {
                let response = record.response.map { " — " + redactor.redact(text: String($0.prefix(80))) } ?? ""
                lines.append("  \(record.uuid)  status \(record.status)  \(record.reason)\(response)")
            }
            if quarantined.count > 50 { lines.append("  … and \(quarantined.count - 50) more") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
