import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The timeline's log is decoded on other connections in chunks (`TimelineBuilder+PipedLog`,
/// `ScanRunner`'s **in order** rule) and handled here in row order; the chunks stand for their rows
/// up to the first row that warned or met damage, and the builder reads the rest itself. A single
/// pass is the reference: on clean, hostile, damaged and sample dumps both give the same timeline
/// and the same warnings.
@Suite struct TimelinePipedLogTests {
    /// A clean log (nothing to warn about) whose fixes arrive out of order, at equal instants, and
    /// exactly one threshold apart, with other events between them: the pipe stands for every row.
    static func cleanLog(_ path: String, seed: UInt64, rows: Int = 4000, warnAt: Set<Int> = []) throws {
        var rng = SplitMix64(seed: seed)
        func pick<T>(_ choices: [T]) -> T { choices[rng.int(0...(choices.count - 1))] }
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        for i in 1...60 { try w.insertRecord(Fixtures.record(i, timestamp: Timestamp.format(1_784_880_000 + Double(i) * 37))) }
        var t = 1_784_880_000.123
        for index in 0..<rows {
            t += pick([0, 0.5, 1, 120, 900, 900, 901, 2000])
            let fixTime = t - pick([0, 0, 3, 899.999, 900, 4000])
            let data = pick([
                "{\"uuid\":\"u\",\"timestamp\":\"\(Timestamp.format(fixTime))\",\"latitude\":52.1,\"longitude\":21.0}",
                "{\"timestamp\":\"\(Timestamp.format(fixTime))\",\"is_moving\":\(pick(["true", "false"])),\"speed\":2}",
                "{\"note\":\"a\\\\b\",\"timestamp\":\"\(Timestamp.format(fixTime))\",\"latitude\":1,\"longitude\":2}",
                "{}",
            ])
            let event = pick(["location", "location", "location", "location", "queue.insert", "heartbeat", "motionchange",
                              "http.request", "http.response", "connectivity", "app"])
            var eventData = event == "location" ? data
                : event == "http.response" ? "{\"status\":\(pick([200, 401, 500])),\"count\":3,\"uuids\":[\"a\",\"b\"]}" : "{}"
            // A row the read warns about: its data is not JSON.
            if warnAt.contains(index) { eventData = "{\"timestamp\":" }
            _ = try w.insertLog(ts: Timestamp.format(t), level: pick([3, 4]), event: event, message: pick([nil, "MOVING"]), data: eventData)
        }
        try w.commit()
        try w.close()
    }

    /// The timeline piped (every log bigger than 2 row ids, in chunks of `chunkRows`) and as one
    /// pass on this thread, each with its dump.
    static func timelines(_ path: String, chunkRows: Int64 = 97) throws
        -> (piped: (Timeline, Dump, PipedRead<TimelineLogItem>.Rest?), single: (Timeline, Dump)) {
        let pipedDump = try Dump(path: path)
        let builder = TimelineBuilder(dump: pipedDump)
        builder.pipeMinimumRows = 2
        builder.pipeChunkRows = chunkRows
        let piped = builder.build()
        let singleDump = try Dump(path: path)
        let reference = TimelineBuilder(dump: singleDump)
        reference.pipeMinimumRows = .max
        let single = reference.build()
        #expect(reference.pipedLogRest == nil)
        return ((piped, pipedDump, builder.pipedLogRest), (single, singleDump))
    }

    static func expectSame(_ timelines: (piped: (Timeline, Dump, PipedRead<TimelineLogItem>.Rest?), single: (Timeline, Dump)),
                           _ label: String = "") {
        let (piped, single) = timelines
        // Compared as flags: a failure names the first line that differs, not two whole timelines.
        let pipedLines = TimelineTextRenderer(colour: false).lines(piped.0)
        let singleLines = TimelineTextRenderer(colour: false).lines(single.0)
        let firstDifference = zip(pipedLines, singleLines).first { $0 != $1 }
        let sameJSON = piped.0.json().jsonText == single.0.json().jsonText
        #expect(sameJSON, "\(label): the JSON differs")
        #expect(pipedLines.count == singleLines.count && firstDifference == nil,
                "\(label): \(pipedLines.count) against \(singleLines.count) lines, first differing: \(String(describing: firstDifference))")
        let sameWarnings = piped.1.warnings.all == single.1.warnings.all
        #expect(sameWarnings, "\(label): \(piped.1.warnings.all.count) warnings against \(single.1.warnings.all.count)")
    }

    /// Chunks of 97 rows (both workers, many turns) and of 5,000 (batches sent inside a chunk).
    @Test(arguments: [(11 as UInt64, 97 as Int64), (12, 97), (13, 5000), (14, 5000)])
    func aCleanLogIsPipedAsOnePass(seed: UInt64, chunkRows: Int64) throws {
        let dir = TestDirectory("timeline-piped-\(seed)")
        let path = dir.file("bgeo.db")
        try Self.cleanLog(path, seed: seed, rows: chunkRows > 1000 ? 12_000 : 4000)
        let result = try Self.timelines(path, chunkRows: chunkRows)
        #expect(result.piped.2 == PipedRead<TimelineLogItem>.Rest.none, "the pipe did not stand for every row")
        Self.expectSame(result)
        #expect(result.single.0.gaps.count > 3)
        #expect(result.single.0.attempts.count > 100)
    }

    /// One row the read warns about: first in the log, first in a chunk, inside one, last; last
    /// of a full batch, first of the next one (2,048 items a batch): the pipe stands for the rows
    /// before it exactly, and this thread reads it and the rest, so the warning and everything
    /// after it are one pass's.
    @Test(arguments: [(0, 97), (97 * 3, 97), (97 * 5 + 40, 97), (3999, 97), (2047, 5000), (2048, 5000), (2500, 5000)] as [(Int, Int64)])
    func aRowThatWarnsEndsThePipeThere(index: Int, chunkRows: Int64) throws {
        let dir = TestDirectory("timeline-piped-warn-\(index)")
        let path = dir.file("bgeo.db")
        try Self.cleanLog(path, seed: 31, warnAt: [index])
        let result = try Self.timelines(path, chunkRows: chunkRows)
        // Log row ids start at 1 in a fresh dump: the row at `index` is id index + 1.
        let expected: Int64? = index == 0 ? nil : Int64(index)
        #expect(result.piped.2 == .readOn(after: expected))
        Self.expectSame(result)
        #expect(result.single.1.warnings.all.count == 1)
    }

    /// Rows the reader warns about (bad times, broken data) everywhere: the pipe stops at the
    /// first and the pass reads on, so the warnings keep their order.
    @Test(arguments: [1 as UInt64, 2, 3])
    func aHostileLogReadsOnWhereThePipeStopped(seed: UInt64) throws {
        let dir = TestDirectory("timeline-piped-hostile-\(seed)")
        let path = dir.file("bgeo.db")
        try TimelineLocationLineTests.randomLog(path, seed: seed)
        try Self.expectReadOn(path)
    }

    /// The pipe stopped where the log warned and this thread read on: one pass's timeline and warnings.
    static func expectReadOn(_ path: String) throws {
        let result = try timelines(path)
        guard case .readOn = result.piped.2 else {
            Issue.record("the pipe stood for every row: \(String(describing: result.piped.2))")
            return
        }
        expectSame(result)
        #expect(!result.single.1.warnings.all.isEmpty)
    }

    /// A garbled page in the log: the other connections do not salvage, so the pipe stops there
    /// and this thread's salvage reads the rest, as it would have alone.
    @Test func aDamagedLogReadsOnWhereThePipeStopped() throws {
        let dir = TestDirectory("timeline-piped-damage")
        let path = dir.file("bgeo.db")
        try Self.cleanLog(path, seed: 21, rows: 6000)
        try PageDamage.garble(path, at: 0.75)
        try Self.expectReadOn(path)
    }

    /// Every sample, piped wherever it has a log: the same timeline as one pass.
    @Test func everySampleReadsTheSamePipedOrNot() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        let samples = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".db") }.sorted()
        #expect(samples.count >= 5)
        var piped = 0
        for name in samples {
            for chunkRows: Int64 in [7, 16_384] {
                let result = try Self.timelines(folder + "/" + name, chunkRows: chunkRows)
                Self.expectSame(result, name)
                if result.piped.2 != nil { piped += 1 }
            }
        }
        #expect(piped >= 6, "only \(piped) sample reads were piped")
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
