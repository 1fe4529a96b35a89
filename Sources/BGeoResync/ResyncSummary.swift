import BGeoForensics
import Foundation
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
    /// Where the run sent (nil for runs that send nothing).
    public var targets: ResyncTargets?
    /// The last failed attempt of the run, and the last HTTP status any server answered.
    public var lastFailure: ResyncFailure?
    public var lastStatus: Int?
    /// `SIGINT` / `SIGTERM` when a signal stopped the run (exit 130).
    public var interruptedBy: String?
    /// The command that resumes the run (shown when work remains).
    /// The words of the command line that resumes the run (unquoted, unredacted; see `resume`).
    public var resumeWords: [String]?

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

    /// Exit code: 130 after SIGINT / SIGTERM; else 0 when the lane's queue (records, or log rows
    /// for `--logs`) is empty, 3 when some remain.
    public var exitCode: Int32 {
        if interruptedBy != nil { return 130 }
        return pending == 0 ? 0 : 3
    }

    /// What is left of this run's lane: queued records, or pending log rows for `--logs`.
    public var pending: Int { logLane ? logsPending : remaining }

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
            "targets": targets?.json(redactor: redactor) ?? .null, "lastFailure": lastFailure?.json ?? .null,
            "lastStatus": .from(lastStatus), "interrupted": .from(interruptedBy),
            "resume": .from(resume(redactor: redactor)),
        ]
    }

    public func text(redactor: Redactor) -> String {
        var lines = ["Re-sync of dump sha256 \(dumpSHA256.prefix(16))… (policy \(policy)), working copy \(workingCopy)"]
        if let targets { lines.append("  sent to:     \(targets.origins.map { redactor.redact(text: $0) }.joined(separator: ", "))") }
        if logLane {
            lines.append("  log rows:    \(logsUploaded) uploaded this run, \(logsPending) remaining")
            lines.append("  records:     \(remaining) queued (not part of a --logs run)")
        } else {
            lines += [
                "  delivered:   \(delivered) this run (\(deliveredTotal) in total)",
                "  quarantined: \(quarantined.count) in total (\(quarantinedThisRun) this run)",
                "  remaining:   \(remaining)",
            ]
            if logsUploaded > 0 { lines.append("  log rows:    \(logsUploaded) uploaded, \(logsPending) pending") }
        }
        lines.append("  requests:    \(requests), token refreshes: \(refreshes) (\(failedRefreshes) failed)")
        if let lastFailure {
            var text = "  last failure: \(lastFailure.lane), \(lastFailure.status == 0 ? "no response" : "status \(lastFailure.status)")"
                + " (\(lastFailure.reason)): \(lastFailure.message)"
            if let lastStatus, lastFailure.status == 0 { text += "; last HTTP status \(lastStatus)" }
            lines.append(text)
        }
        lines.append(String(format: "  time:        %.2f s", seconds))
        if tokens.accessToken != nil || tokens.refreshToken != nil {
            let access = shown(tokens.accessToken, redactor).stringValue ?? "none"
            let refresh = shown(tokens.refreshToken, redactor).stringValue ?? "none"
            lines.append("  auth now:    access \(access), refresh \(refresh)")
        }
        lines.append("  evidence:    " + (evidenceUnchanged ? "unchanged (sha256 re-checked)" : "CHANGED OR UNREADABLE after the run"))
        if let stopReason { lines.append("  \(stopReason)") }
        if let resume = resume(redactor: redactor), pending > 0 || interruptedBy != nil {
            lines.append("  to resume:   \(resume)")
        }
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

    /// The resume command as it can be pasted: each word redacted on its own and shell-quoted. A
    /// `…refreshUrl=URL` word keeps its URL (only the URL's own secrets are hidden): redacted
    /// whole, its name reads as a credential pair and the printed command could not run.
    public func resume(redactor: Redactor) -> String? {
        resumeWords.map { words in
            words.map { word in
                if let eq = word.firstIndex(of: "="), word[..<eq].lowercased().hasSuffix("refreshurl") {
                    return ResyncSummary.shellQuoted(String(word[...eq]) + redactor.redact(text: String(word[word.index(after: eq)...])))
                }
                return ResyncSummary.shellQuoted(redactor.redact(text: word))
            }.joined(separator: " ")
        }
    }

    /// `word` as one shell word: as is when it holds only safe characters, else single-quoted.
    public static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./:=@,+%".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
