/// Keeps the timeline's event list bounded: a run of the same event collapses into one entry
/// (count, first and last rows), and past `limit` entries only the kinds that matter for a
/// diagnosis are still listed; the rest are counted.
struct EventCollector: Sendable {
    private(set) var events: [TimelineEvent] = []
    private(set) var omitted = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Kinds always listed, even past the limit (collapsing still applies to them).
    static let essential: Set<TimelineEvent.Kind> = [.relaunch, .session, .refresh, .poisonDrop, .prune, .config]

    mutating func add(_ event: TimelineEvent) {
        if var last = events.last, last.collapseKey == event.collapseKey {
            last.count += 1
            last.lastAt = event.at
            last.lastLogId = event.logId
            events[events.count - 1] = last
            return
        }
        if events.count >= limit, !EventCollector.essential.contains(event.kind) || events.count >= limit * 2 {
            omitted += 1
            return
        }
        events.append(event)
    }

    /// Updates the summary of the newest event (a refresh result completing its request row),
    /// merging it into the run before it when the two now read the same.
    mutating func completeLast(kind: TimelineEvent.Kind, summary: String) {
        guard var last = events.last, last.kind == kind, last.count == 1 else { return }
        last.summary = summary
        last.collapseKey = kind.rawValue + "\u{1}" + summary
        events.removeLast()
        add(last)
    }
}
