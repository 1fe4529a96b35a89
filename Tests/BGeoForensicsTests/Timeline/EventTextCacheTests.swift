import Testing
@testable import BGeoForensics

/// The frequent engine rows' event texts are built once each (`EventTextCache`): a text from the
/// cache is the text built anew, and a log of endlessly many distinct details keeps the cache
/// bounded without changing a text.
@Suite struct EventTextCacheTests {
    @Test func aCachedTextIsTheTextBuiltAnew() {
        var cache = EventTextCache()
        var built = 0
        for round in 0..<3 {
            for reason in ["accuracy", "speed", "teleport"] {
                let texts = cache.texts(.init(kind: .filter, flag: false, detail: reason)) {
                    built += 1
                    return "fix rejected by the filter (\(reason))"
                }
                let fresh = TimelineEvent(kind: .filter, at: 0, logId: 1, summary: "fix rejected by the filter (\(reason))")
                #expect(texts.summary == fresh.summary && texts.collapseKey == fresh.collapseKey, "round \(round)")
            }
        }
        #expect(built == 3)
    }

    @Test func distinctDetailsPastTheLimitAreBuiltPerRow() {
        var cache = EventTextCache()
        let count = EventTextCache.limit + 50
        var built = 0
        for pass in 0..<2 {
            for index in 0..<count {
                let texts = cache.texts(.init(kind: .connectivity, flag: false, detail: "t\(index)")) {
                    built += 1
                    return "online via t\(index)"
                }
                #expect(texts.summary == "online via t\(index)", "pass \(pass)")
            }
        }
        // The first `limit` were kept; the rest are built on every pass.
        #expect(built == count + (count - EventTextCache.limit))
    }

    /// The few texts asked for last are compared before the dictionary is asked: keys that
    /// differ only in their kind, flag or detail (nil or not), asked in turn within that window,
    /// each get their own text.
    @Test func recentTextsAreToldApartByEveryPartOfTheKey() {
        var cache = EventTextCache()
        let keys: [EventTextCache.Key] = [
            .init(kind: .connectivity, flag: false, detail: "wifi"), .init(kind: .connectivity, flag: true, detail: nil),
            .init(kind: .connectivity, flag: false, detail: nil), .init(kind: .filter, flag: false, detail: "wifi"),
            .init(kind: .filter, flag: true, detail: "wifi"), .init(kind: .connectivity, flag: false, detail: "cellular"),
        ]
        func text(_ key: EventTextCache.Key) -> String { "\(key.kind.rawValue) \(key.flag) \(key.detail ?? "-")" }
        var built = 0
        for round in 0..<4 {
            for (index, key) in keys.enumerated() where round % 2 == 0 || index % 2 == 0 {
                let texts = cache.texts(key) {
                    built += 1
                    return text(key)
                }
                #expect(texts.summary == text(key), "round \(round), key \(index)")
                #expect(texts.collapseKey == TimelineEvent.collapseKey(kind: key.kind, summary: text(key)))
            }
        }
        #expect(built == keys.count)
    }
}
