import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `ReplayOverrides`: a what-if read and checked before the recorded config is known, then
/// applied to it — the file first, then each `--set`, over the recorded keys they leave alone.
@Suite struct ReplayOverridesTests {
    @Test func theFileThenEachSetOverTheRecordedConfig() throws {
        let dir = TestDirectory("replay-overrides")
        let file = dir.file("whatif.json")
        try Data(#"{"config": {"locationFilterPolicy": "Adjust", "locationFilterMaxAccuracy": 80}}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        let overrides = try ReplayOverrides(configFile: file, sets: ["locationfiltermaxaccuracy=120"])
        let recorded = ReplayConfiguration(sdkConfig: SDKConfig(["locationFilterMaxSpeed": .int(42),
                                                                 "locationFilterMaxAccuracy": .int(50)]),
                                           source: "state.config")
        let whatIf = overrides.applied(to: recorded)
        #expect(whatIf.filter.policy == .adjust)
        #expect(whatIf.filter.locationFilterMaxAccuracy == 120)
        #expect(whatIf.filter.locationFilterMaxSpeed == 42)
        #expect(whatIf.overrides == ["--config whatif.json", "locationFilterMaxAccuracy=120"])
        #expect(whatIf.sourceDescription == "state.config, overridden by --config whatif.json, locationFilterMaxAccuracy=120")
        // The same overrides, applied to another base, leave that base's own keys.
        #expect(overrides.applied(to: ReplayConfiguration()).filter.locationFilterMaxSpeed != 42)
    }

    @Test func aBadOverrideFailsBeforeAnyBaseIsKnown() throws {
        #expect(throws: UsageError.self) { try ReplayOverrides(configFile: nil, sets: ["locationFilterPolicy=Adjsut"]) }
        #expect(throws: UsageError.self) { try ReplayOverrides(configFile: nil, sets: ["url=https://x"]) }
        #expect(throws: UsageError.self) { try ReplayOverrides(configFile: "/no/such/whatif.json", sets: []) }
        #expect(try ReplayOverrides(configFile: nil, sets: []).applied(to: ReplayConfiguration()).overrides.isEmpty)
    }
}
