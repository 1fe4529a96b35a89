import Foundation
import Testing
@testable import BGeoForensics

/// What the fuzz suite found, each from its exact case (seed, case number and recipe in the name).
@Suite struct FuzzFindingsTests {
    /// seed 73019 case 671: a state `config` whose `url` is an array nested 511 deep (the reader's
    /// limit is 512) made `inspect --json` print it 514 levels deep. That is valid JSON, but the
    /// runner's check used the reader's limit and called it invalid: the check now parses output
    /// as deep as 4096 levels, and this pins that the tool keeps printing such values whole and valid.
    @Test func seed73019Case671DeeplyNestedConfigValueInInspectJSON() throws {
        let dir = TestDirectory("finding-671")
        let nested = String(repeating: "[", count: 511) + String(repeating: "]", count: 511)
        let dump = try Hostile.dump(at: dir.file("bgeo.db"), layout: .legacy(withState: true)) { w in
            try w.setState("config", raw: "{\"authorization\":{\"accessToken\":\"x\"},\"url\":\(nested)}")
        }
        let result = try Hostile.run(["inspect", dump, "--json"])
        #expect(result.exitCode == 0)
        let bytes = Array(result.stdout.utf8)
        #expect(FuzzRunner.parsesAsJSON(bytes))
        #expect(bytes.withUnsafeBufferPointer { (try? JSONParser.parse(bytes: $0)) == nil }, "deeper than the reader's own limit")
        for command in ["timeline", "replay", "logs", "locations"] {
            let other = try Hostile.run([command, dump, "--json"])
            #expect(other.exitCode == 0 && FuzzRunner.parsesAsJSON(Array(other.stdout.utf8)), "\(command)")
        }
    }
}
