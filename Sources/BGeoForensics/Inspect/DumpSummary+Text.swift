import BGeoReader

extension DumpSummary {
    /// The human-readable summary `inspect` prints, whole: for tests (a tape that cannot be read
    /// ends the list early; `writeText` streams the warnings and says so).
    package var text: String {
        var text = ""
        try? writeText { text += $0 }
        return text
    }

    /// Calls `write` with the summary's text in parts — all but the warnings, then each warning's
    /// line — each ending in a newline; the warnings are read as they are written.
    public func writeText(_ write: (String) -> Void) throws {
        var lines: [String] = []
        lines.append("Dump:    \(path)")
        lines.append("Format:  \(layout.displayName)" + (layout.isLegacy ? " — older SDK build: no `kind` column\(layout.hasState ? "" : ", no state table")" : ""))
        if let sanitized { lines.append("Sanitised: \(sanitized.summary)") }
        lines.append("Inputs (hashed before reading; never modified):")
        for input in inputs {
            lines.append("  \(input.path)  \(input.bytes) bytes  sha256 \(input.sha256)")
        }
        lines.append("")
        lines.append("Queue (\(layout.queueTable ?? "missing")): \(queue.count) pending record\(queue.count == 1 ? "" : "s")"
                     + " — \(queue.locations) location, \(queue.geofences) geofence"
                     + (queue.unreadable > 0 ? ", \(queue.unreadable) unreadable (see warnings)" : ""))
        if let oldest = queue.oldest, let newest = queue.newest {
            lines.append("  oldest \(TerminalText.field(oldest))   newest \(TerminalText.field(newest))"
                         + (queue.headUUID.map { "   head \(TerminalText.field($0))" } ?? ""))
        }
        lines.append("")
        if layout.hasLog {
            let levels = log.byLevel.keys.sorted().map { "\(LogLevel.name(of: $0)) \(log.byLevel[$0]!)" }.joined(separator: ", ")
            lines.append("Log: \(log.count) row\(log.count == 1 ? "" : "s")" + (levels.isEmpty ? "" : " (\(levels))")
                         + ", \(log.pendingUpload) not yet uploaded")
            if let first = log.first, let last = log.last {
                lines.append("  first \(TerminalText.field(first))   last \(TerminalText.field(last))")
            }
        } else {
            lines.append("Log: no log_entries table in this dump.")
        }
        lines.append("")
        lines.append("Engine state:")
        if let object = state.objectValue {
            lines.append("  config from \(configSource)")
            if let auth = object["auth"]?.objectValue {
                for key in ["accessToken", "refreshToken"] {
                    guard let token = auth[key]?.objectValue else { continue }
                    var line = "  \(key): \(token["fingerprint"]?.stringValue ?? "?") (\(token["length"]?.intValue ?? 0) chars"
                    if token["jwt"]?.boolValue == true, let exp = token["exp"]?.stringValue {
                        line += ", JWT exp \(exp)"
                        if token["expiredAtDump"]?.boolValue == true { line += " — already EXPIRED at the dump's newest timestamp" }
                    }
                    lines.append(line + ")")
                }
                if auth["accessToken"] == nil, let clear = auth["accessToken"]?.stringValue { lines.append("  accessToken: \(clear)") }
            }
            if let failures = object["httpFailures"]?.intValue { lines.append("  consecutive upload failures: \(failures)") }
            if let next = object["nextAttemptAt"]?.stringValue { lines.append("  next upload attempt at: \(TerminalText.field(next))") }
            if let odometer = object["odometer"]?.doubleValue { lines.append("  odometer: \(String(format2: odometer)) m") }
            if let device = object["device"]?.objectValue {
                lines.append("  device: " + device.map {
                    TerminalText.field($0.key) + "=" + TerminalText.field($0.value.stringValue ?? $0.value.jsonText)
                }.joined(separator: " "))
            }
            if let config = object["config"], config != .null {
                lines.append("  config (secrets redacted):")
                let pretty = JSONWriter(pretty: true).string(config)
                // A config value may be huge (a token in clear with --show-secrets is kept whole).
                for line in pretty.split(separator: "\n", omittingEmptySubsequences: false) {
                    lines.append("    " + TerminalText.prose(String(line), longestRun: 4096))
                }
            }
        }
        lines.append("")
        if warnings.isEmpty {
            lines.append("Warnings: none — every row decoded.")
            write(lines.joined(separator: "\n") + "\n")
            return
        }
        lines.append("Warnings (\(warnings.count)) — these rows were skipped or read in part:")
        write(lines.joined(separator: "\n") + "\n")
        try warnings.forEach { write("  " + TerminalText.prose($0.description) + "\n") }
    }
}

extension String {
    /// A number with two decimals, without Foundation's locale-dependent formatting.
    public init(format2 value: Double) {
        let scaled = (value * 100).rounded()
        // Too big for two exact decimals (or not a number): the shortest exact text instead.
        guard abs(scaled) < 9e15 else {
            self = NumberText.describe(value)
            return
        }
        let sign = scaled < 0 ? "-" : ""
        let magnitude = Int64(abs(scaled))
        let fraction = magnitude % 100
        self = "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
