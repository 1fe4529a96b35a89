import BGeoReader

/// Keeps the timeline's event list bounded: a run of the same event collapses into one entry
/// (count, first and last rows), and past `limit` entries only the kinds that matter for a
/// diagnosis are still listed; the rest are counted.
struct EventCollector: Sendable {
    private(set) var events: [TimelineEvent] = []
    private(set) var omitted = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Kinds always listed, even past the limit (collapsing still applies to them). Asked per
    /// row, so by a switch: a `Set` of a `String`-backed enum hashes the case's string.
    static func isEssential(_ kind: TimelineEvent.Kind) -> Bool {
        switch kind {
        case .relaunch, .session, .refresh, .poisonDrop, .prune, .config: true
        case .connectivity, .motion, .stationary, .regionExit, .headless, .heartbeat, .deferral, .logUpload, .filter, .app, .unknown: false
        }
    }

    /// Routine kinds collapse across each other: heartbeats interleaved with threshold
    /// deferrals become one run of each instead of hundreds of alternating lines (and the text
    /// history lists them after a run of attempts instead of cutting it).
    static func isRoutine(_ kind: TimelineEvent.Kind) -> Bool {
        switch kind {
        case .heartbeat, .filter, .deferral, .logUpload, .headless: true
        case .session, .relaunch, .config, .connectivity, .motion, .stationary, .regionExit, .refresh, .poisonDrop, .prune, .app, .unknown: false
        }
    }

    /// Adds `event`: joined to a run, counted as omitted, or appended — only then is it
    /// `finishing` (its summary scrubbed: most rows of a busy log join a run, and scrubbing them
    /// all cost more than reading them).
    mutating func add(_ event: TimelineEvent, finishing: (inout TimelineEvent) -> Void = { _ in }) {
        var index = events.count - 1
        while index >= 0 {
            if events[index].collapseKey == event.collapseKey {
                events[index].count += 1
                events[index].lastAt = event.at
                events[index].lastLogId = event.logId
                return
            }
            // Look past the newest entries only while both sides are routine.
            guard EventCollector.isRoutine(event.kind), EventCollector.isRoutine(events[index].kind),
                  events.count - index < 4 else { break }
            index -= 1
        }
        if events.count >= limit, !EventCollector.isEssential(event.kind) || events.count >= limit * 2 {
            omitted += 1
            return
        }
        var event = event
        finishing(&event)
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
