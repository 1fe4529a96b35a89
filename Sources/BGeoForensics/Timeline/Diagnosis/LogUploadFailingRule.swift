import BGeoReader

/// `log.upload_failing`: uploads of the log lane (`logUrl`, `log.upload` rows) failed with a status
/// the engine retries. The log lane is separate from the location uploads (its own rows, no
/// `http.request`), so its throttling says nothing about the queue; it only delays the vendor's
/// copy of the log.
struct LogUploadFailingRule: FindingRule {
    let code = "log.upload_failing"

    func findings(_ facts: DiagnosisFacts) -> [Finding] {
        let failures = facts.logUploadFailures
        guard failures.count > 0, let first = failures.first, let last = failures.last else { return [] }
        var summary = "\(failures.count) log upload\(failures.count == 1 ? "" : "s") (the log lane, logUrl) failed"
        summary += " (status \(facts.statusList(facts.logUploadStatuses)))" + facts.when(first, last) + "."
        summary += facts.lastLogUploadSucceeded == true
            ? " The last log upload succeeded: the lane recovered."
            : " The log rows stay on the device and are retried."
        summary += " Location uploads are a separate lane and are not affected by these."
        return [Finding(code: code, severity: .info, summary: summary,
                        evidence: [Evidence(note: "failed log.upload rows", logIds: failures.rows)],
                        responsible: .server,
                        action: "Nothing for the location data. If the vendor's console must see this device's log sooner, ask the log endpoint's owner why it answered these statuses.")
            .spanning(first, last)]
    }
}
