import BGeoReader

/// What a caller sharing the timeline's log scan (`TimelineBuilder.logObserver`) wants of it: the
/// entries of `events` (nil: of every event), each after the timeline has handled it. Rows the
/// timeline reads from their cells are built into entries only when asked for: the upload rows
/// (`UploadRowKind`) never are, the frequent engine rows (`EngineRowKind`) only when named here.
public struct LogObserver {
    /// The events whose entries are wanted; nil: every event.
    public let events: Set<String>?
    /// Called with each wanted entry.
    public let see: (LogEntry) -> Void

    public init(events: Set<String>? = nil, _ see: @escaping (LogEntry) -> Void) {
        self.events = events
        self.see = see
    }

    /// Whether entries of `event` are wanted.
    public func wants(_ event: String) -> Bool { events?.contains(event) ?? true }
}
