import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Regression (stop 48), from a dump shaped unlike the bench's: a gap after every other fix, a
/// relaunch inside each, and the only motion mark at the start. Each gap looked for its motion
/// state by walking back over every mark before it, so 100,000 gaps took `timeline` 5 s at
/// 200,000 fixes (7.6 times its time at a quarter of the size). The motion marks' positions are
/// searched now; the state found is the same: the first mark's, for every gap.
@Suite struct ManyGapsTests {
    static func dump(_ dir: TestDirectory, gaps: Int) throws -> String {
        try Hostile.dump(at: dir.file("bgeo.db"), records: 0) { w in
            let t0 = 1_784_880_000.0
            try w.begin()
            _ = try w.insertLog(ts: Timestamp.format(t0 - 3_600), level: 3, event: "motionchange", message: "STATIONARY",
                                data: #"{"confidence":90}"#)
            var time = t0
            for i in 0..<(2 * gaps) {
                var record = Hostile.record(0, uuid: "gap-\(i)").objectValue!
                record["timestamp"] = .string(Timestamp.format(time))
                record["is_moving"] = .bool(true)
                try w.insertRecord(.object(record))
                if i % 2 == 1 {
                    _ = try w.insertLog(ts: Timestamp.format(time + 1_800), level: 3, event: "session.relaunch", data: #"{"reason":"killed"}"#)
                    time += 3_600
                } else {
                    time += 10
                }
            }
            try w.commit()
        }
    }

    @Test func manyGapsFindTheirMotionStateInLinearTime() throws {
        let dir = TestDirectory("many-gaps")
        let gaps = 60_000
        let dump = try ManyGapsTests.dump(dir, gaps: gaps)
        let started = Date()
        let result = try Hostile.run(["timeline", dump, "--json"])
        let seconds = Date().timeIntervalSince(started)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(seconds < 15, "timeline took \(seconds) s")
        let listed = try JSONParser.parse(result.stdout)["gaps"]?.arrayValue ?? []
        #expect(listed.count == TimelineOptions().gapLimit)
        // Stationary by the one motion mark, hours before, and resumed where it stopped: expected.
        #expect(listed.allSatisfy { $0["expected"] == .bool(true) && $0["movingAtStart"] == .bool(true) })
    }
}
