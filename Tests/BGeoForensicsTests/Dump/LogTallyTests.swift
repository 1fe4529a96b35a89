import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `inspect`'s log counts read in two halves at once must be a single pass's: the same counts,
/// the same edges (the first row holding the earliest and the latest time), the same warnings
/// in the same order.
@Suite struct LogTallyTests {
    static func randomLog(_ path: String, seed: UInt64, rows: Int) throws {
        var rng = SplitMix64(seed: seed)
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        var t = 1_784_880_000.0
        for _ in 0..<rows {
            // Times step back now and then and repeat, so ties and edges fall in either half.
            t += Double(rng.int(-30...60))
            let ts = rng.int(0...40) == 0 ? "bad time" : Timestamp.format(t)
            let data = rng.int(0...25) == 0 ? "{\"cut\":" : "{\"n\":\(rng.int(0...9))}"
            _ = try w.insertLog(ts: ts, level: rng.int(1...5), event: "heartbeat", data: data, uploaded: rng.int(0...3) == 0)
        }
        try w.commit()
        try w.close()
    }

    @Test(arguments: [1 as UInt64, 2])
    func twoHalvesReadAsOnePass(seed: UInt64) throws {
        let dir = TestDirectory("log-tally-\(seed)")
        let path = dir.file("bgeo.db")
        try Self.randomLog(path, seed: seed, rows: 3000)
        let split = try Dump(path: path), single = try Dump(path: path)
        let halves = LogTally.read(split, minimumSplitRows: 10)
        let whole = LogTally.read(single, minimumSplitRows: 1_000_000)
        #expect(halves.passes == 2 && whole.passes == 1)
        #expect(halves.count == whole.count && whole.count > 2800)
        #expect(halves.byLevel == whole.byLevel && halves.pendingUpload == whole.pendingUpload)
        #expect(halves.first?.time == whole.first?.time && halves.first?.row == whole.first?.row)
        #expect(halves.last?.time == whole.last?.time && halves.last?.row == whole.last?.row)
        #expect(split.warnings.all == single.warnings.all)
        #expect(split.warnings.all.contains { $0.message.contains("not valid JSON") })
        #expect(split.warnings.all.contains { $0.message.contains("not an ISO-8601 time") })
    }

    /// Levels are counted in place for the SDK's 0–7 and by key for any other a row states: the
    /// same counts as one dictionary keyed by level, whole or in halves.
    @Test func everyLevelIsCountedUnderItsOwnKey() throws {
        let dir = TestDirectory("log-tally-levels")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        let levels = [-1, 0, 3, 7, 8, 1000, 3, -1, 5, Int.max, Int.min]
        var expected: [Int: Int] = [:]
        for i in 0..<220 {
            let level = levels[i % levels.count]
            expected[level, default: 0] += 1
            _ = try w.insertLog(ts: Timestamp.format(1_784_500_000 + Double(i)), level: level, event: "heartbeat")
        }
        try w.commit()
        try w.close()
        let halves = LogTally.read(try Dump(path: path), minimumSplitRows: 10)
        let whole = LogTally.read(try Dump(path: path), minimumSplitRows: 1_000_000)
        #expect(halves.passes == 2 && whole.passes == 1)
        #expect(whole.byLevel == expected)
        #expect(halves.byLevel == expected)
    }

    /// Ties: the earliest time stated twice, once in each half: the first row keeps it.
    @Test func aTieAcrossTheHalvesKeepsTheFirstRow() throws {
        let dir = TestDirectory("log-tally-tie")
        let path = dir.file("bgeo.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        for i in 0..<200 {
            let t = i == 10 || i == 150 ? 1_784_000_000.0 : i == 20 || i == 190 ? 1_785_000_000.0 : 1_784_500_000.0 + Double(i)
            _ = try w.insertLog(ts: Timestamp.format(t), level: 3, event: "heartbeat")
        }
        try w.commit()
        try w.close()
        let tally = LogTally.read(try Dump(path: path), minimumSplitRows: 10)
        #expect(tally.passes == 2)
        #expect(tally.first?.row == 11 && tally.last?.row == 21)
    }
}
