import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct TimelinePartsTests {
    @Test func coverageMergesOutOfOrderFixesAndFindsGaps() throws {
        var map = CoverageMap(threshold: 900)
        for t in stride(from: 0.0, through: 600, by: 10) { map.add(t, moving: true) }
        for t in stride(from: 3000.0, through: 3600, by: 10) { map.add(t, moving: false) }
        #expect(map.gaps.count == 1)
        #expect(map.gaps.first?.before.time == 600 && map.gaps.first?.after.time == 3000 && map.gaps.first?.before.moving == true)
        // A late fix from the queue fills the hole: 600 → 1400 → 2200 → 3000 are all < 900 apart.
        map.add(1400, moving: true)
        #expect(map.gaps.count == 1)
        map.add(2200, moving: true)
        #expect(map.gaps.isEmpty)
        #expect(map.intervals.count == 1 && map.fixCount == 124)
        // An old fix far before everything opens a gap at the front.
        map.add(-5000, moving: nil)
        #expect(map.gaps.count == 1 && map.gaps.first?.after.time == 0)
        // Exactly the threshold apart is a gap.
        var edge = CoverageMap(threshold: 900)
        edge.add(0, moving: true)
        edge.add(900, moving: true)
        #expect(edge.gaps.count == 1)
        // Positions travel with the edge fixes; a richer fix at the same instant wins.
        var placed = CoverageMap(threshold: 900)
        placed.add(CoverageMap.Edge(time: 0, queueRow: 7))
        placed.add(CoverageMap.Edge(time: 0, moving: true, latitude: 52.0, longitude: 21.0))
        placed.add(CoverageMap.Edge(time: 2000, moving: false, latitude: 52.1, longitude: 21.0))
        let gap = try #require(placed.gaps.first)
        #expect(gap.before.moving == true && gap.before.queueRow == nil)
        let metres = try #require(CoverageMap.distance(gap.before, gap.after))
        #expect(abs(metres - 11_119.5) < 1)  // 0.1° of latitude
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

    /// The scrubber's cache asks its last text first, then its dictionary: texts asked in turn,
    /// again and again (a URL and a body per attempt, a summary per listed event), each get their
    /// own redaction, the one an uncached redactor gives.
    @Test func scrubbedTextsAskedInTurnGetTheirOwnRedaction() {
        var redactor = Redactor()
        redactor.learn(secret: "sk_live_turn_secret_42")
        var scrubber = SecretScrubber(redactor: redactor)
        let texts = ["https://x.example/p?api_key=abcdef123", "token refresh requested", "key sk_live_turn_secret_42 in use",
                     "https://x.example/p?api_key=abcdef123", "https://x.example/p?api_key=abcdef124", "https://x.example/p?api_key=zzzz9999",
                     "token refresh requested", "token refresh succeeded"]
        for round in 0..<3 {
            for text in texts + texts.reversed() {
                #expect(scrubber.scrub(url: text) == redactor.redact(text: text), "round \(round): \(text)")
                #expect(scrubber.scrub(cachedBody: text) == SecretScrubber(redactor: redactor).scrub(body: text), "round \(round): \(text)")
            }
        }
    }

    /// Regression (stop 56): the cache was keyed by `String`, whose `==` is canonical
    /// equivalence, so a URL holding a learned secret precomposed got the redaction of the same
    /// URL spelled decomposed, asked before it: that URL as it was, the password readable.
    @Test func aTextSpelledOtherwiseGetsItsOwnRedaction() {
        var redactor = Redactor()
        redactor.learn(secret: "p\u{E4}ssw\u{F6}rd-1")
        var scrubber = SecretScrubber(redactor: redactor)
        let decomposed = "https://x.example/login?u=pa\u{308}sswo\u{308}rd-1", precomposed = "https://x.example/login?u=p\u{E4}ssw\u{F6}rd-1"
        #expect(decomposed == precomposed)
        for _ in 0..<2 {
            for text in [decomposed, precomposed, decomposed, "other", precomposed] {
                #expect(scrubber.scrub(url: text).utf8.elementsEqual(redactor.redact(text: text).utf8), "\(Array(text.utf8))")
                #expect(scrubber.scrub(cachedBody: text).utf8.elementsEqual(SecretScrubber(redactor: redactor).scrub(body: text).utf8))
            }
        }
        #expect(!redactor.redact(text: precomposed).contains("rd-1"), "the secret itself is redacted")
    }

    @Test func textViewNeverSendsControlCharacters() {
        #expect(TimelineTextRenderer.clean("app: \u{1B}[31mred\u{07}") == "app: \\u{1b}[31mred\\u{7}")
        #expect(TimelineTextRenderer.clean("plain – text ✓") == "plain – text ✓")
        let lines = TimelineTextRenderer(colour: false).wrap("a \u{1B}]0;title\u{07} b", width: 80)
        #expect(!lines.joined().unicodeScalars.contains { $0.value == 0x1B })
    }

    @Test func severityOrderAndEvidenceBounds() {
        #expect(Severity.info < .warning && Severity.warning < .error)
        let evidence = Evidence(logIds: (1...120).map { Int64($0) }, uuids: ["a"])
        #expect(evidence.logIds.count == Evidence.defaultLimit && evidence.omittedLogIds == 70 && evidence.omittedUuids == 0)
        #expect(DurationFormat.short(5) == "5 s" && DurationFormat.short(300) == "5 min" && DurationFormat.short(7800) == "2 h 10 min")
    }
}

@Suite struct FixLineFieldsTests {
    func time(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { FixLineFields.quickTime($0) }
    }

    @Test func readsTheEngineShape() {
        let line = "{\"uuid\":\"u-1\",\"timestamp\":\"2026-07-24T09:14:32.118Z\",\"latitude\":52.2,\"longitude\":21.0,\"accuracy\":8.4,\"speed\":6.7,\"is_moving\":true,\"raw_latitude\":52.2,\"raw_longitude\":21.0}"
        #expect(time(line) == Timestamp.parse("2026-07-24T09:14:32.118Z"))
        #expect(time("{ \"timestamp\" : \"2026-07-24T09:14:32Z\", \"is_moving\": false}") == Timestamp.parse("2026-07-24T09:14:32Z"))
        // A nested timestamp is not the fix's; the top-level one is found after it.
        #expect(time("{\"x\":{\"timestamp\":\"2026-07-25T00:00:00Z\"},\"timestamp\":\"2026-07-24T09:14:32Z\"}") == Timestamp.parse("2026-07-24T09:14:32Z"))
        // A string value that reads "timestamp" is not a key.
        #expect(time("{\"note\":\"timestamp\",\"timestamp\":\"2026-07-24T09:14:32Z\"}") == Timestamp.parse("2026-07-24T09:14:32Z"))
    }

    @Test func declinesWhatItCannotReadSafely() {
        #expect(time("{\"uuid\":\"u\"}") == nil)  // no timestamp
        #expect(time("{\"timestamp\":\"yesterday\"}") == nil)
        #expect(time("{\"note\":\"a \\\" b\",\"timestamp\":\"2026-07-24T09:14:32Z\"}") == nil)  // escapes
        #expect(time("{\"timestamp\":1785000000}") == nil)
        #expect(time("{\"timestamp\":\"2026-07-24T09:14:32Z") == nil)  // truncated
    }

    /// The one parser of fix lines reads every field any reader takes, by name.
    @Test func readsEveryFieldAReaderTakes() throws {
        var text = "{\"uuid\":\"u-1\",\"timestamp\":\"2026-07-24T09:14:32Z\",\"latitude\":52.2,\"longitude\":21.0,"
            + "\"accuracy\":-1,\"speed\":6.7,\"heading\":-1,\"altitude\":110.5,\"raw_latitude\":52.19,\"raw_longitude\":20.99,"
            + "\"reason\":\"accuracy\",\"adjusted_latitude\":52.21,\"adjusted_longitude\":21.01,\"odometer\":1200.5}"
        var fields: [FieldScanner.Field] = []
        let read: (String?, Double?, Double?, Double?, Double?, Double?, Double?, Double?, Double?, Bool?, String?, Double?)? = text.withUTF8 { bytes in
            FixLineFields(bytes, reusing: &fields).map { line in
                (line.uuid, line.time, line.rawLatitude, line.adjustedLongitude, line.accuracy, line.heading, line.knownHeading,
                 line.altitude, line.odometer, line.moving, line.reason, line.speed)
            }
        }
        let line = try #require(read)
        #expect(line.0 == "u-1" && line.1 == Timestamp.parse("2026-07-24T09:14:32Z"))
        #expect(line.2 == 52.19 && line.3 == 21.01 && line.7 == 110.5 && line.8 == 1200.5 && line.10 == "accuracy")
        // Negative accuracy and heading mean unknown where a reader asks for a known value.
        #expect(line.4 == nil && line.5 == -1 && line.6 == nil && line.11 == 6.7)
        // No is_moving: moving follows the speed (above 1 m/s).
        #expect(line.9 == true)
        var notAnObject = "[1,2]"
        #expect(notAnObject.withUTF8 { FixLineFields($0, reusing: &fields) } == nil)
    }

    /// The one motion rule every coverage edge takes (fix lines, queued records, LongPing's):
    /// `is_moving` as stated, else a known speed above 1 m/s; a negative speed is unknown.
    @Test func motionIsOneRule() {
        #expect(FixMotion.moving(isMoving: false, speed: 30) == false)
        #expect(FixMotion.moving(isMoving: true, speed: 0) == true)
        #expect(FixMotion.moving(isMoving: nil, speed: 1.5) == true)
        #expect(FixMotion.moving(isMoving: nil, speed: 1) == false)
        #expect(FixMotion.moving(isMoving: nil, speed: -3) == nil)
        #expect(FixMotion.moving(isMoving: nil, speed: nil) == nil)
        var fields: [FieldScanner.Field] = []
        for (data, expected) in [("{\"speed\":-3}", nil), ("{\"speed\":4}", true), ("{\"is_moving\":false,\"speed\":4}", false)] as [(String, Bool?)] {
            var text = data
            #expect(text.withUTF8 { FixLineFields($0, reusing: &fields)?.moving } == expected, "\(data)")
        }
    }
}
