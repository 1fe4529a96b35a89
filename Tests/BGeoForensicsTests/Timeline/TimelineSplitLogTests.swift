import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The timeline reads a big log in two halves at once (`TimelineBuilder.SplitLogRead`): the later
/// half is kept only when it can stand for a single pass. A single pass is the reference: on
/// clean, hostile, damaged and sample dumps both give the same timeline and the same warnings.
@Suite struct TimelineSplitLogTests {
    /// A clean log (nothing to warn about) whose fixes arrive out of order, at equal instants, and
    /// exactly one threshold apart, with other events between them: the split must be taken.
    static func cleanLog(_ path: String, seed: UInt64, rows: Int = 4000) throws {
        var rng = SplitMix64(seed: seed)
        func pick<T>(_ choices: [T]) -> T { choices[rng.int(0...(choices.count - 1))] }
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        for i in 1...60 { try w.insertRecord(Fixtures.record(i, timestamp: Timestamp.format(1_784_880_000 + Double(i) * 37))) }
        var t = 1_784_880_000.123
        for _ in 0..<rows {
            t += pick([0, 0.5, 1, 120, 900, 900, 901, 2000])
            let fixTime = t - pick([0, 0, 3, 899.999, 900, 4000])
            let data = pick([
                "{\"uuid\":\"u\",\"timestamp\":\"\(Timestamp.format(fixTime))\",\"latitude\":52.1,\"longitude\":21.0}",
                "{\"timestamp\":\"\(Timestamp.format(fixTime))\",\"is_moving\":\(pick(["true", "false"])),\"speed\":2}",
                "{\"note\":\"a\\\\b\",\"timestamp\":\"\(Timestamp.format(fixTime))\",\"latitude\":1,\"longitude\":2}",
                "{}",
            ])
            let event = pick(["location", "location", "location", "location", "queue.insert", "heartbeat", "motionchange",
                              "http.request", "http.response"])
            let eventData = event == "location" ? data : event == "http.response" ? "{\"status\":\(pick([200, 401, 500])),\"count\":3}" : "{}"
            _ = try w.insertLog(ts: Timestamp.format(t), level: pick([3, 4]), event: event, message: pick([nil, "MOVING"]), data: eventData)
        }
        try w.commit()
        try w.close()
    }

    static func timelines(_ path: String) throws -> (split: (Timeline, Dump, Int), single: (Timeline, Dump)) {
        let splitDump = try Dump(path: path)
        let builder = TimelineBuilder(dump: splitDump)
        builder.splitMinimumRows = 2
        let split = builder.build()
        let singleDump = try Dump(path: path)
        let reference = TimelineBuilder(dump: singleDump)
        reference.splitMinimumRows = .max
        return ((split, splitDump, builder.logPasses), (reference.build(), singleDump))
    }

    @Test(arguments: [11 as UInt64, 12, 13, 14])
    func aCleanLogIsReadInTwoHalvesAsOnePass(seed: UInt64) throws {
        let dir = TestDirectory("timeline-split-\(seed)")
        let path = dir.file("bgeo.db")
        try Self.cleanLog(path, seed: seed)
        let (split, single) = try Self.timelines(path)
        #expect(split.2 == 2, "the later half was not kept")
        #expect(split.0.json().jsonText == single.0.json().jsonText)
        #expect(TimelineTextRenderer(colour: false).lines(split.0) == TimelineTextRenderer(colour: false).lines(single.0))
        #expect(split.1.warnings.all == single.1.warnings.all)
        #expect(single.0.gaps.count > 3)
    }

    /// Rows the reader warns about (bad times, broken data) in the later half: the split is given
    /// up and the pass reads on, so the warnings keep their order.
    @Test(arguments: [1 as UInt64, 2, 3])
    func aHostileLogFallsBackToOnePass(seed: UInt64) throws {
        let dir = TestDirectory("timeline-split-hostile-\(seed)")
        let path = dir.file("bgeo.db")
        try TimelineLocationLineTests.randomLog(path, seed: seed)
        try Self.expectOnePass(path)
    }

    /// A garbled page in the log: the second connection does not salvage, so the split is given
    /// up and the single pass's salvage reads the rest, as it would have alone.
    @Test func aDamagedLogFallsBackToOnePass() throws {
        let dir = TestDirectory("timeline-split-damage")
        let path = dir.file("bgeo.db")
        try Self.cleanLog(path, seed: 21, rows: 6000)
        try PageDamage.garble(path, at: 0.75)
        try Self.expectOnePass(path)
    }

    /// The split was given up, and the timeline and its warnings are one pass's.
    static func expectOnePass(_ path: String) throws {
        let (split, single) = try timelines(path)
        #expect(split.2 == 1)
        #expect(split.0.json().jsonText == single.0.json().jsonText)
        #expect(split.1.warnings.all == single.1.warnings.all)
        #expect(!single.1.warnings.all.isEmpty)
    }

    /// Every sample, split wherever it has a log: the same timeline as one pass.
    @Test func everySampleReadsTheSameSplitOrNot() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        let samples = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".db") }.sorted()
        #expect(samples.count >= 5)
        var splits = 0
        for name in samples {
            let (split, single) = try Self.timelines(folder + "/" + name)
            #expect(split.0.json().jsonText == single.0.json().jsonText, "\(name)")
            #expect(split.1.warnings.all == single.1.warnings.all, "\(name)")
            if split.2 == 2 { splits += 1 }
        }
        #expect(splits >= 3, "only \(splits) samples were read in two halves")
    }

    /// `CoverageMap.absorb`: a map of the first fixes joined with a map of the rest equals the map
    /// of all of them added one by one — out of order, at equal instants (a richer fix wins), and
    /// exactly one threshold apart.
    @Test func absorbingTheLaterFixesEqualsAddingThem() {
        var rng = SplitMix64(seed: 7)
        for trial in 0..<400 {
            let threshold = [900.0, 60, 0.5][trial % 3]
            var fixes: [CoverageMap.Edge] = []
            var t = 1_784_880_000.001
            for _ in 0..<rng.int(0...120) {
                t += [0, 0.25, threshold, threshold - 0.001, threshold * 3, 1][rng.int(0...5)]
                let time = rng.int(0...4) == 0 ? t - Double(rng.int(0...5)) * threshold : t
                switch rng.int(0...3) {
                case 0: fixes.append(CoverageMap.Edge(time: time, queueRow: Int64(rng.int(1...99))))
                case 1: fixes.append(CoverageMap.Edge(time: time, logRow: Int64(rng.int(1...99))))
                case 2: fixes.append(CoverageMap.Edge(time: time, moving: rng.int(0...1) == 0, latitude: 1, longitude: 2))
                default: fixes.append(CoverageMap.Edge(time: rng.int(0...20) == 0 ? .nan : time))
                }
            }
            let cut = rng.int(0...fixes.count)
            var whole = CoverageMap(threshold: threshold)
            for fix in fixes { whole.add(fix) }
            var first = CoverageMap(threshold: threshold)
            var later = CoverageMap(threshold: threshold)
            for fix in fixes[..<cut] { first.add(fix) }
            for fix in fixes[cut...] { later.add(fix) }
            first.absorb(later)
            #expect(first.intervals == whole.intervals, "trial \(trial), cut \(cut) of \(fixes.count)")
            #expect(first.fixCount == whole.fixCount)
        }
    }
}
