import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Issue 27: the timeline kept a context mark for every heartbeat and connectivity row that did not
/// continue the newest run, so two kinds alternating beside every fix grew memory with the log
/// (181 MB at 1 M fixes on the bench's log5x shape). `pruneMarks` drops the marks no gap can show;
/// the unpruned timeline is the reference: the same gaps, contexts and motion states, byte for byte.
@Suite struct TimelineMarkPruningTests {
    /// Fixes every 5 s with a heartbeat and a connectivity row beside each (alternating marks),
    /// sessions and motion changes now and then, random silences of 10 min to 3 h (some gaps, some
    /// not), and fix lines written late.
    static func alternatingLog(_ path: String, seed: UInt64, fixes: Int) throws {
        var rng = SplitMix64(seed: seed)
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        var t = 1_784_880_000.0
        var late: [(Double, String)] = []
        for i in 0..<fixes {
            t += rng.chance(0.0003) ? rng.double(600...10_800) : 5
            let line = "{\"uuid\":\"\(rng.uuid())\",\"timestamp\":\"\(Timestamp.format(t))\",\"latitude\":52.1,\"longitude\":21.0,\"is_moving\":true}"
            if rng.chance(0.01) { late.append((t, line)) } else { try w.insertLog(ts: Timestamp.format(t), level: 4, event: "location", data: line) }
            try w.insertLog(ts: Timestamp.format(t), level: 4, event: "heartbeat", data: nil as String?)
            try w.insertLog(ts: Timestamp.format(t + 1), level: 3, event: "connectivity",
                            data: "{\"connected\":\(rng.chance(0.9)),\"transport\":\"wifi\"}")
            if i % 997 == 0 { try w.insertLog(ts: Timestamp.format(t + 2), level: 3, event: "session.relaunch", data: "{\"reason\":\"kill\"}") }
            if i % 1499 == 0 {
                try w.insertLog(ts: Timestamp.format(t + 3), level: 3, event: "motionchange",
                                message: rng.chance(0.5) ? "MOVING" : "STATIONARY", data: "{\"confidence\":80}")
            }
            if late.count > 20 || i == fixes - 1 {
                for (at, text) in late { try w.insertLog(ts: Timestamp.format(at), level: 4, event: "location", data: text) }
                late.removeAll()
            }
        }
        try w.commit()
        try w.close()
    }

    static func timeline(_ path: String, pruneAt: Int) throws -> (text: String, marks: Int) {
        var options = TimelineOptions()
        options.markPruneThreshold = pruneAt
        let builder = TimelineBuilder(dump: try Dump(path: path), options: options)
        let timeline = builder.build()
        return (JSONWriter(sortedKeys: true).string(timeline.json()), builder.marksKept)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func prunedMarksGiveTheUnprunedTimeline(seed: UInt64) throws {
        let folder = TestDirectory("mark-pruning")
        let path = folder.file("alternating.db")
        try TimelineMarkPruningTests.alternatingLog(path, seed: seed, fixes: 30_000)
        let reference = try TimelineMarkPruningTests.timeline(path, pruneAt: .max)
        let pruned = try TimelineMarkPruningTests.timeline(path, pruneAt: 1_000)
        let same = pruned.text == reference.text  // (not in the expectation: a mismatch would print both documents)
        #expect(same, "the timeline with pruned marks differs from the unpruned one")
        #expect(reference.text.contains("\"contextEvents\":[{"), "no gap shows context: the test would prove nothing")
        // Two marks per fix unpruned; pruned, those near a gap (and those since the last pruning,
        // at most as many again).
        #expect(reference.marks > 50_000)
        #expect(pruned.marks * 4 < reference.marks, "\(pruned.marks) of \(reference.marks) marks kept")
    }
}
