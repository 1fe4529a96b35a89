import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 11 item 2, from the reproduced case: a record uuid of 70,000 characters made text
/// `replay` run for minutes (its aligned table trimmed padding with a `\s+$` regex, quadratic in
/// the padding: 16,000 characters took 12 s). Now it takes no time, and text views shorten the
/// field to 64 characters and "… (70000 chars)".
@Suite struct LongFieldTests {
    static let uuid = String(repeating: "x", count: 70_000)

    static func dump(_ dir: TestDirectory) throws -> String {
        try Hostile.dump(at: dir.file("bgeo.db"), records: 0) { w in
            try w.begin()
            for i in 0..<10 { try w.insertRecord(Hostile.record(i, uuid: i == 5 ? LongFieldTests.uuid : nil)) }
            try w.commit()
            try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 2, src: "js", event: "app", message: LongFieldTests.uuid,
                            data: nil as JSONValue?)
        }
    }

    @Test func seventyThousandCharacterUUIDReplaysQuicklyAndShortened() throws {
        let dir = TestDirectory("long-uuid")
        let dump = try LongFieldTests.dump(dir)
        let started = Date()
        let replay = try Hostile.run(["replay", dump])
        let seconds = Date().timeIntervalSince(started)
        #expect(replay.exitCode == 0, "\(replay.stderr)")
        // The old build needed minutes here; a generous bound keeps this meaningful on a busy machine.
        #expect(seconds < 20, "replay took \(seconds) s")
        #expect(replay.stdout.contains(String(repeating: "x", count: 64) + "… (70000 chars)"))
    }

    @Test func everyTextViewShortensTheField() throws {
        let dir = TestDirectory("long-views")
        let dump = try LongFieldTests.dump(dir)
        for command in ["inspect", "locations", "logs", "replay", "timeline"] {
            let result = try Hostile.run([command, dump])
            #expect(result.exitCode == 0, "\(command): \(result.stderr)")
            let longest = (result.stdout + result.stderr).split(separator: "\n").map(\.count).max() ?? 0
            #expect(longest < 2_000, "\(command): a line of \(longest) characters")
            #expect(!result.stdout.contains(String(repeating: "x", count: 300)), "\(command) printed the field whole")
        }
        let json = try Hostile.run(["locations", dump, "--json"])
        #expect(json.stdout.contains(LongFieldTests.uuid), "JSON keeps the field whole")
    }
}
