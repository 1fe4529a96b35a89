import Testing
@testable import BGeoReader

/// A log read's check of each row's event (`LogQuery.EventMatch`, made once per read) answers as
/// the per-row definition did: an exact name, or a `prefix.*` pattern's prefix; every event when
/// no events are asked for.
@Suite struct LogEventMatchTests {
    /// The rule as it was written per row before it was read once per scan.
    static func definition(_ events: [String], _ event: String) -> Bool {
        guard !events.isEmpty else { return true }
        return events.contains { pattern in
            if pattern.hasSuffix("*") { return event.hasPrefix(pattern.dropLast()) }
            return event == pattern
        }
    }

    @Test func answersAsTheDefinition() {
        let queries: [[String]] = [[], ["location"], ["location", "filter.reject", "filter.adjust", "config", "auth.refresh.result"],
                                   ["http.*"], ["http.*", "queue.*", "config"], ["*"], ["é*", "ÉVÉNEMENT"], ["http.request*"]]
        let events = ["", "location", "locations", "locatio", "Location", "http.", "http", "http.request", "http.request.sent",
                      "xhttp.request", "queue.insert", "queue", "config", "configs", "auth.refresh.result", "auth.refresh",
                      "filter.reject", "filter.adjust", "é", "éa", "ÉVÉNEMENT", "e\u{301}", "*", "http.*"]
        var checked = 0
        for query in queries {
            let match = LogQuery.EventMatch(query)
            for event in events {
                #expect(match.matches(event) == Self.definition(query, event), "\(query) \(event)")
                checked += 1
            }
        }
        #expect(checked == queries.count * events.count)
        #expect(LogQuery.EventMatch(["http.*"]).matches("http.response"))
        #expect(!LogQuery.EventMatch(["location"]).matches("locations"))
    }
}
