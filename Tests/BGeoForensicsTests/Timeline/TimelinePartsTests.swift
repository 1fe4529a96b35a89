import Testing
@testable import BGeoForensics

@Suite struct TimelinePartsTests {
    @Test func coverageMergesOutOfOrderFixesAndFindsGaps() {
        var map = CoverageMap(threshold: 900)
        for t in stride(from: 0.0, through: 600, by: 10) { map.add(t, moving: true) }
        for t in stride(from: 3000.0, through: 3600, by: 10) { map.add(t, moving: false) }
        #expect(map.gaps.count == 1)
        #expect(map.gaps.first?.start == 600 && map.gaps.first?.end == 3000 && map.gaps.first?.movingAtStart == true)
        // A late fix from the queue fills the hole: 600 → 1400 → 2200 → 3000 are all < 900 apart.
        map.add(1400, moving: true)
        #expect(map.gaps.count == 1)
        map.add(2200, moving: true)
        #expect(map.gaps.isEmpty)
        #expect(map.intervals.count == 1 && map.fixCount == 124)
        // An old fix far before everything opens a gap at the front.
        map.add(-5000, moving: nil)
        #expect(map.gaps.count == 1 && map.gaps.first?.end == 0)
        // Exactly the threshold apart is a gap.
        var edge = CoverageMap(threshold: 900)
        edge.add(0, moving: true)
        edge.add(900, moving: true)
        #expect(edge.gaps.count == 1)
    }

    @Test func collectorCollapsesRunsAndStaysBounded() {
        var collector = EventCollector(limit: 3)
        for i in 0..<100 {
            collector.add(TimelineEvent(kind: .heartbeat, at: Double(i), logId: Int64(i), summary: "heartbeat"))
        }
        #expect(collector.events.count == 1)
        #expect(collector.events[0].count == 100 && collector.events[0].logId == 0 && collector.events[0].lastLogId == 99)
        for i in 100..<110 {
            collector.add(TimelineEvent(kind: .unknown, at: Double(i), logId: Int64(i), summary: "x\(i)"))
        }
        #expect(collector.events.count == 3 && collector.omitted == 8)
        collector.add(TimelineEvent(kind: .relaunch, at: 200, logId: 200, summary: "relaunch"))
        // Routine events collapse across each other, but not across a relaunch.
        var routine = EventCollector(limit: 100)
        for i in 0..<10 {
            routine.add(TimelineEvent(kind: .heartbeat, at: Double(2 * i), logId: Int64(2 * i), summary: "heartbeat"))
            routine.add(TimelineEvent(kind: .deferral, at: Double(2 * i + 1), logId: Int64(2 * i + 1), summary: "deferred",
                                      collapseKey: "d"))
        }
        #expect(routine.events.map(\.count) == [10, 10])
        routine.add(TimelineEvent(kind: .relaunch, at: 30, logId: 30, summary: "relaunch"))
        routine.add(TimelineEvent(kind: .heartbeat, at: 31, logId: 31, summary: "heartbeat"))
        #expect(routine.events.map(\.count) == [10, 10, 1, 1])
        #expect(collector.events.last?.kind == .relaunch)
    }

    @Test func scrubberHidesQueryAndBodySecrets() {
        var scrubber = SecretScrubber(redactor: Redactor())
        let url = scrubber.scrub(url: "https://x.example/p?api_key=abcdef123&deviceId=dev-1&access_token=zzzz9999")
        #expect(!url.contains("abcdef123") && !url.contains("zzzz9999") && url.contains("deviceId=dev-1"))
        let body = scrubber.scrub(body: "{\"access_token\":\"tok-123456\",\"message\":\"ok\"}")
        #expect(!body.contains("tok-123456") && body.contains("\"message\":\"ok\""))
        #expect(scrubber.scrub(body: "refresh_token=qwerty1234 rejected").contains("‹redacted"))
        let truncated = scrubber.scrub(body: "{\"error\":\"expired\",\"access_token\": \"abcdef98765\",\"x\":\"https://h.example/a\"")
        #expect(!truncated.contains("abcdef98765") && truncated.contains("\"access_token\": \"‹redacted"))
        #expect(truncated.contains("https://h.example/a"))
        #expect(scrubber.scrub(cachedBody: "token=abcdef1 x") == scrubber.scrub(cachedBody: "token=abcdef1 x"))
        var off = SecretScrubber(redactor: .disabled)
        #expect(off.scrub(url: "https://x/?token=abcdef") == "https://x/?token=abcdef")
    }

    @Test func severityOrderAndEvidenceBounds() {
        #expect(Severity.info < .warning && Severity.warning < .error)
        let evidence = Evidence(logIds: (1...120).map { Int64($0) }, uuids: ["a"])
        #expect(evidence.logIds.count == Evidence.defaultLimit && evidence.omittedLogIds == 70 && evidence.omittedUuids == 0)
        #expect(DurationFormat.short(5) == "5 s" && DurationFormat.short(300) == "5 min" && DurationFormat.short(7800) == "2 h 10 min")
    }
}
