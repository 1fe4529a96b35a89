import BGeoReader

/// `timeline --ticket`: a Markdown summary a support engineer pastes into a ticket, at most
/// `lineLimit` lines — the dump (name, SHA-256, format, span), each finding in one sentence with
/// who, what to do and its first evidence rows, the tool's version and the command that
/// reproduces it. Findings that do not fit are counted, never silently left out.
public struct TimelineTicketRenderer: Sendable {
    public static let lineLimit = 30
    /// Evidence rows and uuids quoted per finding.
    static let citedLimit = 4

    /// The words after `bgeo-forensics timeline DUMP` that rebuilt this timeline (window, policy, gap).
    public var reproduceArguments: [String]

    public init(reproduceArguments: [String] = []) { self.reproduceArguments = reproduceArguments }

    public func lines(_ timeline: Timeline) -> [String] {
        var head: [String] = []
        head.append("### bgeo-forensics timeline: \(Self.text(timeline.dumpName))")
        var dump = "- **Dump**: " + Self.code(timeline.dumpName)
        if let sha = timeline.inputs.first?.sha256 { dump += " · sha256 " + Self.code(String(sha.prefix(16))) }
        dump += " · \(timeline.format.rawValue) dump, checked against the \(timeline.policy.rawValue) upload policy"
        head.append(dump)
        var span = "- **Span**: "
        if let first = timeline.firstAt, let last = timeline.lastAt {
            span += "\(Timestamp.format(first, milliseconds: false)) → \(Timestamp.format(last, milliseconds: false)) · "
        }
        span += "\(timeline.logRows) log rows · \(timeline.pendingRecords) records pending"
        if let window = timeline.window { span += window.emptyNote.map { " · " + $0 } ?? " · window \(Self.windowText(timeline))" }
        head.append(span)
        if let incomplete = timeline.history.sentence { head.append("- **History**: " + Self.text(incomplete)) }
        let counts = Severity.allCases.reversed().map { severity in
            let n = timeline.findings.filter { $0.severity == severity }.count
            return "\(n) \(severity.name)\(n == 1 || severity == .info ? "" : "s")"
        }
        head.append("- **Findings**: " + counts.joined(separator: ", "))
        head.append("")

        var footer = [""]
        let command = (["bgeo-forensics", "timeline", timeline.dumpName] + reproduceArguments + ["--ticket"])
            .map(Self.shellWord).joined(separator: " ")
        footer.append("_\(ToolInfo.name) \(ToolInfo.version) · reproduce: \(Self.code(command))_")

        var body: [String] = []
        let room = Self.lineLimit - head.count - footer.count
        for (index, finding) in timeline.findings.enumerated() {
            let entry = Self.entry(finding, number: index + 1)
            let left = timeline.findings.count - index
            // Keep a line for "… more" unless this is the last finding.
            if body.count + entry.count + (left > 1 ? 1 : 0) > room {
                let rest = timeline.findings[index...]
                let worst = rest.map(\.severity).max()?.name ?? "info"
                body.append("- … and \(rest.count) more finding\(rest.count == 1 ? "" : "s") (the most severe: \(worst)): run `bgeo-forensics timeline` for all.")
                break
            }
            body += entry
        }
        if timeline.findings.isEmpty { body.append("No findings: uploads, refreshes and tracking look as the policy expects.") }
        return head + body + footer
    }

    /// Two lines: what, then who / what to do / where.
    static func entry(_ finding: Finding, number: Int) -> [String] {
        let what = "\(number). **\(finding.severity.name.uppercased())** \(code(finding.code))"
            + (finding.rule.map { " (\(code($0)))" } ?? "") + " — " + text(firstSentence(finding.summary))
        var detail = "   Who: \(finding.responsible.rawValue). Do: " + text(firstSentence(finding.action))
        let rows = finding.allLogIds
        if !rows.isEmpty {
            let more = rows.count - min(rows.count, citedLimit) + finding.evidence.reduce(0) { $0 + $1.omittedLogIds }
            detail += " Rows: " + rows.prefix(citedLimit).map { "#\($0)" }.joined(separator: " ") + (more > 0 ? " (+\(more))" : "")
        }
        let uuids = finding.allUuids
        if !uuids.isEmpty {
            let more = finding.citedUuidCount - min(uuids.count, citedLimit)
            detail += " · uuids: " + uuids.prefix(2).map { code($0) }.joined(separator: " ") + (more > 0 ? " (+\(finding.citedUuidCount - min(uuids.count, 2)))" : "")
        }
        return [what, detail]
    }

    /// The summary up to its first sentence's end (". " before a capital), at most 400 characters.
    static func firstSentence(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var end = scalars.count
        var i = 0
        while i + 2 < scalars.count {
            if scalars[i] == ".", scalars[i + 1] == " ", scalars[i + 2].properties.isUppercase {
                end = i + 1
                break
            }
            i += 1
        }
        var sentence = String(String.UnicodeScalarView(scalars[..<end]))
        if sentence.count > 400 { sentence = String(sentence.prefix(399)) + "…" }
        return sentence
    }

    static func windowText(_ timeline: Timeline) -> String {
        (timeline.since.map { Timestamp.format($0, milliseconds: false) } ?? "start") + " → "
            + (timeline.until.map { Timestamp.format($0, milliseconds: false) } ?? "end")
    }

    /// Customer text as Markdown prose: controls and bidi shown escaped, Markdown's own
    /// characters backslash-escaped so a dump's strings cannot format, link or inject HTML.
    static func text(_ raw: String) -> String {
        var out = ""
        for character in TerminalText.prose(raw) {
            if "\\`*_[]<>#|!~".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// A code span: no backtick inside can close it (replaced by ').
    static func code(_ raw: String) -> String {
        "`" + TerminalText.prose(raw).replacingOccurrences(of: "`", with: "'") + "`"
    }

    /// A word as a POSIX shell reads it back: quoted when it holds anything but safe characters.
    static func shellWord(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_./:=+@%,".unicodeScalars.contains($0)) }
        return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
