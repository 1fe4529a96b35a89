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
}
