import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Issue 27 (report memory on a log 5x its queue: 172 MB at 1 M fixes): the queue-depth series
/// kept a point per `queue.insert` row in memory, twice. Its levels now go to a spool in the
/// private folder and its points are read from it as the chart draws them. Regression: the points
/// are the old in-memory series' (every level sorted by time and log row, each eviction
/// subtracted), on levels logged far out of order — past the spool's reorder window, so part of
/// them is sorted on disk.
@Suite struct QueueDepthSpoolTests {
    /// The old definition: every level held, sorted, folded.
    static func inMemory(_ levels: [QueueDepthSeries.Level], pendingAtDump: Int, dumpTime: Double?) -> [QueueDepthSeries.Point] {
        guard levels.contains(where: { !$0.evicts }) else { return [] }
        let sorted = levels.sorted { $0.time != $1.time ? $0.time < $1.time : $0.logId < $1.logId }
        var out: [QueueDepthSeries.Point] = []
        var depth: Int?
        for l in sorted {
            if l.evicts { depth = depth.map { max(0, $0 - l.depth) } } else { depth = l.depth }
            if let depth { out.append(QueueDepthSeries.Point(time: l.time, depth: depth, logId: l.logId)) }
        }
        if let dumpTime { out.append(QueueDepthSeries.Point(time: max(dumpTime, out.last?.time ?? dumpTime), depth: pendingAtDump, logId: nil)) }
        return out
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func spooledPointsAreTheInMemorySeries(seed: UInt64) throws {
        let dump = try Dump(path: SampleReports.paths[0])
        var reader = QueueDepthSeries.LevelReader(dump: dump, windows: TraceWindows(reorder: 16))
        var rng = SplitMix64(seed: seed)
        var kept: [QueueDepthSeries.Level] = []
        for row in 1...5_000 {
            // Mostly in order; one row in ten logged up to an hour early or late.
            let time = 1_784_880_000 + Double(row) * 2 + (rng.chance(0.1) ? rng.double(-3600...3600) : 0)
            let event = ["queue.insert", "queue.insert", "queue.insert", "queue.prune", "sync.deferred", "heartbeat"][rng.int(0...5)]
            let count = rng.int(0...400)
            let data = event == "sync.deferred" ? #"{"pending":\#(count)}"# : #"{"count":\#(count)}"#
            reader.add(LogEntry(rowId: Int64(row), tsText: "", time: time, level: 5, src: "native", event: event, dataText: data))
            if event != "heartbeat" {
                kept.append(QueueDepthSeries.Level(time: time, depth: count, logId: Int64(row), evicts: event == "queue.prune"))
            }
        }
        let series = QueueDepthSeries.Series(stored: try reader.finish(), attempts: [], pendingAtDump: 7, dumpTime: 1_784_890_000)
        let spooled = try series.points()
        let expected = Self.inMemory(kept, pendingAtDump: 7, dumpTime: 1_784_890_000)
        #expect(spooled.count == expected.count && spooled.count > 4_000)
        #expect(spooled == expected)
        // Read twice (the chart and a test both read it): the same points.
        #expect(try series.points() == spooled)
    }
}
