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
    /// Sees, instead of `see`, the wanted rows the timeline reads from their cells (`location` and
    /// `queue.insert` lines, `queue.drop` and the engine rows), after the timeline has; `dataChecked`: the row's
    /// data was checked already. Returns true when it checked the data itself (its parse validated
    /// the JSON, before any warning of its own), so the read does not check it again. Without
    /// it, those rows come to `see` as entries.
    let seeCells: ((LogRowView, _ dataChecked: Bool) -> Bool)?

    public init(events: Set<String>? = nil, _ see: @escaping (LogEntry) -> Void) {
        self.events = events
        self.see = see
        seeCells = nil
    }

    /// An observer that also reads rows from their cells (`seeCells`).
    init(events: Set<String>?, cells: @escaping (LogRowView, _ dataChecked: Bool) -> Bool, entries: @escaping (LogEntry) -> Void) {
        self.events = events
        see = entries
        seeCells = cells
    }

    /// Whether entries of `event` are wanted.
    public func wants(_ event: String) -> Bool { events?.contains(event) ?? true }

    /// Whether the timeline may read rows of `event` from their cells with this observer: it does
    /// not want them, or takes them from the cells too.
    func leavesToCells(_ event: String) -> Bool { seeCells != nil || !wants(event) }

    /// The rows read from their cells that this observer is shown, worked out once for a pass
    /// (asking the set of event names per row, and copying the observer to ask, showed in the
    /// report's profile); nil when it reads no cells.
    var shownCells: ShownCells? {
        guard let seeCells else { return nil }
        return ShownCells(location: wants("location"), queueInsert: wants("queue.insert"), drop: wants("queue.drop"),
                          engines: EngineRowKinds(EngineRowKind.allCases.filter { wants($0.event) }), see: seeCells)
    }

    /// Which rows read from their cells an observer is shown (`shownCells`), and how.
    struct ShownCells {
        let location: Bool
        let queueInsert: Bool
        let drop: Bool
        let engines: EngineRowKinds
        /// `LogObserver.seeCells`.
        let see: (LogRowView, _ dataChecked: Bool) -> Bool

        /// Whether the row of `item` is shown (an upload row never is; an entry goes to `see(_:)`).
        func shows(_ item: TimelineLogItem) -> Bool {
            switch item {
            case .location: return location
            case .queueInsert: return queueInsert
            case .drop: return drop
            case .engine(let kind, _, _): return engines.contains(kind)
            case .upload, .entry: return false
            }
        }
    }
}
