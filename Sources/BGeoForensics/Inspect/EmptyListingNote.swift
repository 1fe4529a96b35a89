import BGeoReader

/// Why a `logs` / `locations` listing came out empty, in one sentence for stderr: the output
/// itself stays a valid (empty) table, CSV or JSON, but the user is told that the filters matched
/// nothing and what the dump does hold, so an empty result is never mistaken for "no problem".
public enum EmptyListingNote {
    /// The note for an empty `logs` listing; `filters` are the options as typed (`--src bogus`).
    public static func log(_ dump: Dump, query: LogQuery, filters: [String]) -> String {
        guard dump.layout.hasLog else {
            return dump.layout.format == .longping
                ? "This LongPing dump has no log (LongPing keeps only its queue): nothing to list. Try 'locations' or 'inspect'."
                : "This dump has no log_entries table: nothing to list."
        }
        let total = dump.logRowCount() ?? 0
        guard total > 0 else { return "The log is empty (0 rows)." }
        guard !filters.isEmpty else { return "No log rows." }
        var sentence = "No log rows match \(filters.joined(separator: " ")) (the log has \(total) row\(total == 1 ? "" : "s"))"
        var hints: [String] = []
        if let src = query.src {
            let sources = dump.logValues(of: .src)
            if !sources.contains(src) { hints.append("--src is one of: " + sources.joined(separator: ", ")) }
        }
        let events = dump.logValues(of: .event)
        for pattern in query.events where !pattern.hasSuffix("*") && !events.contains(pattern) {
            if events.contains(where: { $0.hasPrefix(pattern + ".") }) {
                hints.append("for every '\(pattern).…' event write --event '\(pattern).*'")
            } else if let near = Suggestion.closest(to: pattern, among: events) {
                hints.append("did you mean --event \(near)?")
            } else {
                hints.append("no event is called '\(pattern)'; the most frequent are " + events.prefix(8).joined(separator: ", "))
            }
        }
        if !hints.isEmpty { sentence += "; " + hints.joined(separator: "; ") }
        // Event and source names come from the dump: shown with control characters made visible.
        return TimelineTextRenderer.clean(sentence.hasSuffix("?") ? sentence : sentence + ".")
    }

    /// The note for an empty `locations` listing.
    public static func queue(_ dump: Dump, filters: [String]) -> String {
        guard dump.layout.queueTable != nil else { return "This dump has no queue table: nothing to list." }
        let total = dump.queueRowCount() ?? 0
        guard total > 0 else { return "The queue is empty (0 records): everything was uploaded, dropped or pruned." }
        guard !filters.isEmpty else { return "No records." }
        return TimelineTextRenderer.clean("No records match \(filters.joined(separator: " ")) (the queue holds \(total) record\(total == 1 ? "" : "s")).")
    }
}
