import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// An attempt's uuids are kept as 16-byte keys when canonical (`UUIDList`): every text must
/// read back exactly as it was cited, canonical or not.
@Suite struct UUIDListTests {
    @Test func aCanonicalUuidReadsBackFromItsKey() {
        var rng = SplitMix64(seed: 2026_12_05)
        for _ in 0..<20_000 {
            let uuid = (0..<36).map { i -> Character in
                [8, 13, 18, 23].contains(i) ? "-" : Array("0123456789abcdef")[Int.random(in: 0..<16, using: &rng)]
            }
            let text = String(uuid)
            let key = UUIDKey(text)
            #expect(key?.text == text, "\(text)")
        }
        #expect(UUIDKey("ffffffff-ffff-ffff-ffff-ffffffffffff")?.text == "ffffffff-ffff-ffff-ffff-ffffffffffff")
        #expect(UUIDKey("00000000-0000-0000-0000-000000000000")?.text == "00000000-0000-0000-0000-000000000000")
    }

    @Test func anyOtherTextIsKeptAsItIs() {
        let cited = ["0c7d2a53-7e1b-4f4e-9b1a-2f3c4d5e6f70", "0C7D2A53-7E1B-4F4E-9B1A-2F3C4D5E6F70", "", "{0c7d2a53-7e1b-4f4e-9b1a-2f3c4d5e6f70}",
                     "\u{1b}[31mred", "\u{202e}evil", String(repeating: "x", count: 100_000), "0c7d2a53-7e1b-4f4e-9b1a-2f3c4d5e6f7",
                     "0c7d2a53_7e1b-4f4e-9b1a-2f3c4d5e6f70"]
        let list = UUIDList(cited)
        #expect(Array(list) == cited)
        #expect(list.count == cited.count && list.first == cited[0])
        #expect(list == UUIDList(cited) && list != UUIDList(cited.reversed()))
        #expect(Array(list.prefix(2)) == Array(cited.prefix(2)))
    }

    /// The timeline's attempts cite the same uuids as before (the stranded sample's batches).
    @Test func theTimelineCitesTheSameUuids() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        let timeline = TimelineBuilder(dump: try Dump(path: samples + "/stranded-refresh.db")).build()
        let cited = timeline.attempts.flatMap { Array($0.uuids) }
        #expect(cited.count > 100 && cited.allSatisfy { UUIDKey($0) != nil }, "\(cited.prefix(3))")
    }
}
