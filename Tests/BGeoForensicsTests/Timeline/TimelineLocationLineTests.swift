import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The timeline reads `location` log lines straight from SQLite's cells (no `LogEntry`) unless
/// an observer wants every entry. The observed path is the reference: on random and hostile
/// logs both must give the same timeline and the same warnings.
@Suite struct TimelineLocationLineTests {
    static func randomLog(_ path: String, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        func pick<T>(_ choices: [T]) -> T { choices[rng.int(0...(choices.count - 1))] }
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        for i in 1...40 { try w.insertRecord(Fixtures.record(i, timestamp: Timestamp.format(1_784_880_000 + Double(i) * 7))) }
        var t = 1_784_880_000.0
        for _ in 0..<3000 {
            t += Double(rng.int(0...400))
            let stamp = Timestamp.format(t)
            let fixStamp = Timestamp.format(t - Double(rng.int(0...5)))
            let data: String? = pick([
                "{\"uuid\":\"u\",\"timestamp\":\"\(fixStamp)\",\"latitude\":52.1,\"longitude\":21.0,\"speed\":\(pick(["0.5", "3", "-1", "null"])),\"is_moving\":\(pick(["true", "false", "null"]))}",
                "{\"timestamp\":\"\(fixStamp)\",\"latitude\":52.1}",
                "{\"note\":\"a\\\\b\",\"timestamp\":\"\(fixStamp)\",\"speed\":2.5}",
                "{\"timestamp\":\"x\\u0032\",\"is_moving\":true}",
                "{\"timestamp\":\"\(fixStamp)\"", "not json", "[1,2]", "{}", "{\"timestamp\":12}", "", nil,
                "{\"timestamp\":\"\\ud800\"}", "{ \"timestamp\" : \"\(fixStamp)\" , \"latitude\" : 1 }",
                // What the engine rows state (read from their cells on the direct path).
                "{\"connected\":false,\"transport\":\"wifi\"}", "{\"connected\":\"no\",\"transport\":\"c\\u0065ll\"}",
                "{\"reason\":\"accuracy\"}", "{\"reason\":7}", "{\"success\":true,\"status\":200}",
                "{\"success\":0,\"status\":\" 400 \"}", "{\"success\":\"1\",\"status\":9007199254740993}",
                "{\"success\":null,\"status\":401.0}", "[{\"success\":true}]",
                // What a queue.drop row states (read from its cells on the direct path too).
                "{\"uuids\":[\"a\",\"b\",\"a\",7],\"status\":422,\"count\":3}", "{\"uuids\":\"a\",\"status\":\" 500 \"}",
                "{\"\\u0075uids\":[\"x\"],\"uuids\":[\"z\"],\"st\\u0061tus\":409,\"status\":200}",
            ])
            let event = pick(["location", "location", "location", "Location", "locatio", "heartbeat", "queue.insert",
                              "motionchange", "http.request", "connectivity", "filter.reject", "filter.adjust",
                              "auth.refresh", "auth.refresh.result", "auth.refresh.result", "heartbeats", "queue.drop", "queue.drop"])
            try w.insertLog(ts: pick([stamp, stamp, stamp, "bad time"]), level: pick([3, 4, 5]), event: event,
                            message: pick([nil, "MOVING", "m"]), data: data)
        }
        try w.commit()
        try w.close()
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func directLocationLinesMatchTheObservedPath(seed: UInt64) throws {
        let dir = TestDirectory("timeline-lines-\(seed)")
        let path = dir.file("bgeo.db")
        try Self.randomLog(path, seed: seed)
        let direct = try Dump(path: path)
        let observed = try Dump(path: path)
        let directTimeline = TimelineBuilder(dump: direct).build()
        let builder = TimelineBuilder(dump: observed)
        var seen = 0, uploadRowsSeen = 0, engineRowsSeen = 0, dropRowsSeen = 0
        builder.logObserver = LogObserver { entry in
            seen += 1
            if UploadRowKind(event: entry.event) != nil { uploadRowsSeen += 1 }
            if EngineRowKind(event: entry.event) != nil { engineRowsSeen += 1 }
            if entry.event == "queue.drop" { dropRowsSeen += 1 }
        }
        let observedTimeline = builder.build()
        // Every row but the upload rows (1 in 19 here), which are read from their cells on both
        // paths; the engine rows (6 in 19) and queue.drop rows (2 in 19), asked for, come as
        // entries (read from cells without one).
        #expect(seen > 2000)
        #expect(uploadRowsSeen == 0)
        #expect(engineRowsSeen > 800)
        #expect(dropRowsSeen > 200)
        #expect(directTimeline.json().jsonText == observedTimeline.json().jsonText)
        #expect(direct.warnings.all == observed.warnings.all)
        #expect(!direct.warnings.all.isEmpty)
    }
}
