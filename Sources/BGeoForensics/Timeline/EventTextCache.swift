/// The summary and collapse key of the frequent engine rows' events (heartbeats, connectivity,
/// filter decisions), built once per distinct text: a busy log states the same few hundreds of
/// thousands of times, and building two strings per row cost more than the rest of the row's
/// handling. An event made from a cached text is the event made from the text built anew.
struct EventTextCache {
    /// What the text depends on: the event's kind, a flag and a detail the row states.
    struct Key: Hashable {
        let kind: TimelineEvent.Kind
        let flag: Bool
        let detail: String?
    }

    /// The texts of one event.
    struct Texts {
        let summary: String
        let collapseKey: String
    }

    /// A log of distinct details (every filter reason different) keeps at most this many: the
    /// rest are built per row, as without the cache.
    static let limit = 1024
    private var built: [Key: Texts] = [:]
    /// The few texts asked for last, compared before the dictionary is asked: a busy log repeats
    /// a handful of events, and hashing a key (its kind's string and its detail) per row cost
    /// more than comparing it with four.
    private var recent: [(key: Key, texts: Texts)] = []
    private var nextRecent = 0
    static let recentLimit = 4

    /// The texts of `key`'s event, `summary` built only the first time.
    mutating func texts(_ key: Key, _ summary: () -> String) -> Texts {
        for entry in recent where entry.key == key { return entry.texts }
        let texts: Texts
        if let known = built[key] {
            texts = known
        } else {
            let text = summary()
            texts = Texts(summary: text, collapseKey: TimelineEvent.collapseKey(kind: key.kind, summary: text))
            if built.count < EventTextCache.limit { built[key] = texts }
        }
        if recent.count < EventTextCache.recentLimit {
            recent.append((key, texts))
        } else {
            recent[nextRecent] = (key, texts)
            nextRecent = (nextRecent + 1) % EventTextCache.recentLimit
        }
        return texts
    }
}
