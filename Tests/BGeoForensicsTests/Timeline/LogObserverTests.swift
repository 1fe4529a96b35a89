import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Which rows a log observer sharing the timeline's pass is shown (`LogObserver.shownCells`,
/// worked out once per pass instead of asking its set of events per row): the rows of the events
/// it names, those read from their cells through `seeCells`, the others as entries; upload rows
/// never; every row when it names none. Each in row order, after the timeline handled it.
@Suite struct LogObserverTests {
    static let events = ["location", "queue.insert", "heartbeat", "connectivity", "filter.reject", "filter.adjust",
                         "auth.refresh", "auth.refresh.result", "http.request", "http.response", "app", "config", "queue.drop"]

    /// Each event twice over, in turn; returns the rows' ids by event.
    static func write(_ path: String) throws -> [String: [Int64]] {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        var ids: [String: [Int64]] = [:]
        var t = 1_784_880_000.0
        for round in 0..<2 {
            for event in events {
                t += 30
                let stamp = Timestamp.format(t)
                let data: String = switch event {
                case "location", "filter.reject", "filter.adjust":
                    "{\"uuid\":\"u\(round)\",\"timestamp\":\"\(stamp)\",\"latitude\":52.1,\"longitude\":21.0,\"accuracy\":5}"
                case "http.response": "{\"status\":200,\"count\":1,\"uuids\":[\"u\(round)\"]}"
                case "queue.drop": "{\"status\":422,\"uuids\":[\"u\(round)\"]}"
                default: "{\"count\":\(round + 1)}"
                }
                ids[event, default: []].append(try w.insertLog(ts: stamp, level: 4, event: event, data: data))
            }
        }
        try w.commit()
        try w.close()
        return ids
    }

    @Test(arguments: [["location", "filter.reject", "app"], ["queue.insert", "heartbeat", "auth.refresh.result", "http.response"],
                      ["queue.drop", "config"], nil])
    func shownTheRowsOfItsEventsOnly(_ named: [String]?) throws {
        let dir = TestDirectory("log-observer-\(named?.joined(separator: "-") ?? "all")")
        let path = dir.file("bgeo.db")
        let ids = try Self.write(path)
        let dump = try Dump(path: path)
        var fromCells: [Int64] = [], asEntries: [Int64] = []
        let builder = TimelineBuilder(dump: dump, options: TimelineOptions(gapLimit: .max), redactor: dump.makeRedactor())
        builder.pipeMinimumRows = .max
        builder.logObserver = LogObserver(events: named.map(Set.init), cells: { row, dataChecked in
            fromCells.append(row.rowId)
            return false
        }, entries: { entry in asEntries.append(entry.rowId) })
        _ = builder.build()
        let uploads: Set<String> = ["http.request", "http.response"]
        let cellEvents = Set(["location", "queue.insert", "queue.drop"] + EngineRowKind.allCases.map(\.event))
        let wanted = (named ?? Self.events).filter { !uploads.contains($0) }
        let expectedCells = wanted.filter(cellEvents.contains).flatMap { ids[$0]! }.sorted()
        let expectedEntries = wanted.filter { !cellEvents.contains($0) }.flatMap { ids[$0]! }.sorted()
        #expect(fromCells == expectedCells)
        #expect(asEntries == expectedEntries)
        #expect(!fromCells.isEmpty)
    }
}
