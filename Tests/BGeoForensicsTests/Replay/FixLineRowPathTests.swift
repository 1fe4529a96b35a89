import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The report parses `location` lines straight from SQLite's cells (`ParsedLines.parse(row:)`),
/// replay from a `LogEntry`'s texts: the one parser behind both must give the same items, the
/// same counts and the same located warnings, in the same order, on random and hostile lines.
@Suite struct FixLineRowPathTests {
    /// Stands for bytes a String cannot hold; replaced in the stored cells after insertion.
    static let invalidByteMarks = [("~FF~", "FF"), ("~C3~", "C3"), ("~E282~", "E282"), ("~NUL~", "00"), ("~ED~", "EDA080")]

    static func randomLog(_ path: String, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        func pick<T>(_ choices: [T]) -> T { choices[rng.int(0...(choices.count - 1))] }
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        var t = 1_784_880_000.0
        for _ in 0..<4000 {
            t += Double(rng.int(0...90))
            let stamp = Timestamp.format(t)
            let fixStamp = Timestamp.format(t - Double(rng.int(0...5)))
            var members: [String] = []
            let fields: [(String, [String])] = [
                ("uuid", ["\"u-\(rng.int(0...50))\"", "\"\"", "null", "7", "\"u\\u002d1\"", "\"u~FF~x\"", "\"~C3~\"", "\"\\ud800\""]),
                ("timestamp", ["\"\(fixStamp)\"", "\"\(fixStamp)\"", "\"\(fixStamp)\"", "\"\(fixStamp)\"", "\"\(fixStamp)\"",
                               "\"\(fixStamp)\"", "\"\(fixStamp)\"", "\"\(fixStamp)\"", "\"yesterday\"", "\"\"", "12", "null",
                               "\"\(fixStamp)~NUL~\"", "\"~E282~\"", "\"2026-07-25T00:00:00\\u005a\"", "\"2026-02-30T00:00:00Z\""]),
                ("latitude", ["52.1", "52.2", "52.3", "52.4", "-90", "-1e-400", "0", "90.0001", "1e400", "\"52\"", "null", "NaN"]),
                ("longitude", ["21.0", "21.1", "21.2", "21.3", "180", "0", "-180.5", "2e308", "\"21\"", "true"]),
                ("raw_latitude", ["52.2", "91", "null"]), ("raw_longitude", ["21.1", "-181", "{}"]),
                ("accuracy", ["5", "-1", "1e19", "null"]), ("speed", ["3.5", "-0", "-2", "1e308"]),
                ("odometer", ["12.5", "-3", "9e15"]), ("heading", ["90", "-1", "[1]"]), ("altitude", ["100", "-1e10"]),
                ("is_moving", ["true", "false", "1", "null"]),
                ("reason", ["\"accuracy\"", "\"teleport\"", "\"speed\"", "\"nope\"", "3", "\"~ED~\""]),
                ("note", ["\"a\\\\b\"", "\"~FF~\"", "{\"latitude\":1,\"timestamp\":\"x\"}", "[\"timestamp\"]"]),
            ]
            for (key, values) in fields where rng.int(0...7) > (key.hasSuffix("itude") ? 0 : 2) { members.append("\"\(key)\":" + pick(values)) }
            for i in stride(from: members.count - 1, to: 0, by: -1) { members.swapAt(i, rng.int(0...i)) }
            let object = "{" + members.joined(separator: pick([",", " , "])) + "}"
            let data: String? = pick([object, object, object, object, object, object, object, object, nil, "", "not json", "[1,2]", "{}",
                                      String(object.dropLast()), object + "x", "{\"latitude\":1,\"latitude\":2,\"longitude\":3}"])
            let event = pick(["location", "location", "location", "location", "filter.reject", "filter.adjust",
                              "Location", "heartbeat", "queue.insert"])
            try w.insertLog(ts: pick([stamp, stamp, stamp, stamp, stamp, stamp, stamp, stamp, "bad time", "\(stamp)~FF~"]), level: pick([3, 4, 5]), event: event,
                            message: pick([nil, "m"]), data: data)
        }
        try w.commit()
        for (mark, hex) in invalidByteMarks {
            for column in ["data", "ts"] {
                try w.database.execute("UPDATE log_entries SET \(column) = CAST(replace(\(column), '\(mark)', CAST(X'\(hex)' AS TEXT)) AS TEXT) WHERE instr(\(column), '\(mark)') > 0")
            }
        }
        try w.close()
    }

    /// Every parsed item (or its absence) and the counts, as text (NaN-safe).
    static func transcript(_ parsed: TraceBuilder.ParsedLines, _ items: [Fix?]) -> [String] {
        items.map { $0.map { String(reflecting: $0) } ?? "nil" }
            + ["\(parsed.locations) \(parsed.rejects) \(parsed.adjusts) \(parsed.skipped)"]
    }

    @Test(arguments: [11 as UInt64, 12, 13])
    func rowsAndEntriesParseAlike(seed: UInt64) throws {
        let dir = TestDirectory("fix-line-rows-\(seed)")
        let path = dir.file("bgeo.db")
        try Self.randomLog(path, seed: seed)
        // The timeline's query (every row, data validated), as the report reads the log.
        let query = LogQuery(order: .oldestFirst)
        let byEntry = try Dump(path: path)
        var entryLines = TraceBuilder.ParsedLines()
        var entryItems: [Fix?] = []
        byEntry.forEachLogEntry(query) { entry in
            guard TraceBuilder.ParsedLines.events.contains(entry.event) else { return }
            entryItems.append(entryLines.parse(entry, warnings: byEntry.warnings))
        }
        let byRow = try Dump(path: path)
        var rowLines = TraceBuilder.ParsedLines()
        var rowItems: [Fix?] = []
        var rowsSeen = 0
        byRow.forEachLogEntry(query, takenFromCells: { row in
            guard row.event == "location" else { return false }
            rowsSeen += 1
            rowItems.append(rowLines.parse(row, warnings: byRow.warnings))
            return true
        }) { entry in
            guard TraceBuilder.ParsedLines.events.contains(entry.event) else { return }
            rowItems.append(rowLines.parse(entry, warnings: byRow.warnings))
        }
        #expect(rowsSeen > 1000)
        #expect(entryLines.locations > 200 && entryLines.skipped > 300 && entryLines.rejects > 20,
                "\(entryLines.locations) \(entryLines.skipped) \(entryLines.rejects)")
        #expect(entryItems.contains { $0?.lineKind == .unmatchedLocation })
        let byRows = Self.transcript(rowLines, rowItems), byEntries = Self.transcript(entryLines, entryItems)
        #expect(byRows.count == byEntries.count)
        let firstDifference = zip(byRows, byEntries).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "line \(firstDifference?.offset ?? -1): \(firstDifference?.element.0 ?? "") vs \(firstDifference?.element.1 ?? "")")
        #expect(byRow.warnings.all == byEntry.warnings.all)
        // Each kind of located warning is met (so the comparison above covers them).
        let messages = byEntry.warnings.all.map(\.description)
        for phrase in ["line has no data", "data is not a JSON object", "is not an ISO-8601 time; not replayed",
                       "has no usable latitude/longitude", "has no uuid", "is not valid JSON", "ts '"] {
            #expect(messages.contains { $0.contains(phrase) }, "\(phrase)")
        }
    }
}
