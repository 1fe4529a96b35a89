import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Each finding rule on its own (`FindingRule`), on the facts the timeline gathers from a sample
/// (`TimelineBuilder.readFacts`) and on those facts changed where the rule looks: a rule is a pure
/// function of `DiagnosisFacts`, so changing one fact must change only what that rule says.
@Suite struct FindingRuleTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path

    static func facts(_ sample: String) throws -> DiagnosisFacts {
        TimelineBuilder(dump: try Dump(path: samples + "/\(sample).db")).readFacts()
    }

    @Test func theListHoldsOneRuleForEveryCodeAndDiagnosesAsTheTimelineDoes() throws {
        let codes = FindingRules.all.map(\.code)
        #expect(Set(codes).count == codes.count, "one rule type per code: \(codes)")
        for sample in ["stranded-refresh", "poison-batch", "process-kill", "longping", "healthy-day"] {
            let dump = try Dump(path: Self.samples + "/\(sample).db")
            let timeline = TimelineBuilder(dump: dump).build()
            let facts = try Self.facts(sample)
            #expect(FindingRules.diagnose(facts) == timeline.findings, "\(sample)")
            #expect(timeline.findings.allSatisfy { codes.contains($0.code) }, "\(sample): a finding no rule makes")
        }
    }

    @Test func queueStrandedNamesTheFailingRunAndFallsBackToTheEngineCounter() throws {
        var facts = try Self.facts("stranded-refresh")
        let found = QueueStrandedRule().findings(facts)
        #expect(found.count == 1 && found[0].severity == .error, "\(found.map(\.summary))")
        #expect(found[0].summary.contains("400 records are waiting"))
        // No upload row in the log (logLevel below info): the engine's own counter speaks.
        facts.stats = UploadTracker.Stats()
        facts.totalAttempts = 0
        let fromState = QueueStrandedRule().findings(facts)
        #expect(fromState.count == 1 && fromState[0].responsible == .unknown)
        #expect(fromState[0].summary.contains("the engine's state counts 106 consecutive failed uploads"))
        facts.pendingRecords = 0
        #expect(QueueStrandedRule().findings(facts).isEmpty, "nothing pending, nothing stranded")
    }

    @Test func authRefreshFailingIsAnErrorOnlyWhileItStillFails() throws {
        var facts = try Self.facts("stranded-refresh")
        let found = AuthRefreshFailingRule().findings(facts)
        #expect(found.count == 1 && found[0].severity == .error && found[0].responsible == .server)
        facts.stats.lastRefreshSucceeded = true
        #expect(AuthRefreshFailingRule().findings(facts).first?.severity == .info)
        facts.stats.refreshFailures = 0
        #expect(AuthRefreshFailingRule().findings(facts).isEmpty)
    }

    @Test func authNoRefreshNamesTheAppsConfig() throws {
        var facts = try Self.facts("stranded-refresh")
        #expect(AuthNoRefreshRule().findings(facts).isEmpty, "refresh is configured here")
        facts.stats.unauthorizedWithoutAuth = 3
        facts.stats.unauthorizedStatuses = [401: 3]
        let found = AuthNoRefreshRule().findings(facts)
        #expect(found.count == 1 && found[0].responsible == .appConfig)
    }

    @Test func poisonDroppedSaysWhetherThePolicyAllowedIt() throws {
        var facts = try Self.facts("poison-batch")
        let found = PoisonDroppedRule().findings(facts)
        #expect(found.count == 1 && found[0].responsible == .server && found[0].summary.contains("as poison"))
        // The tracker counts the drops that broke the policy (the count policy.violation shows).
        facts.stats.dropStatuses = [503: 1]
        facts.stats.dropsBreakingPolicy = 1
        let broken = PoisonDroppedRule().findings(facts).first
        #expect(broken?.responsible == .engine)
        #expect(broken?.summary.contains("The drop broke the upload policy") == true, "\(broken?.summary ?? "")")
    }

    @Test func policyViolationCountsTheEnginesCounterAgainstTheLog() throws {
        var facts = try Self.facts("healthy-day")
        #expect(PolicyViolationRule().findings(facts).isEmpty)
        facts.state.httpFailures = 4
        let found = PolicyViolationRule().findings(facts)
        #expect(found.map(\.rule) == [PolicyRule.successNoReset.rawValue], "\(found.map(\.summary))")
        facts.options.until = Simulator.baseTime + 3600
        #expect(PolicyViolationRule().findings(facts).isEmpty, "a window that ends early cannot compare the state")
    }

    @Test func queueAttemptsWarnsOnLongPingRecordsNearDeletion() throws {
        let facts = try Self.facts("longping")
        let found = QueueAttemptsRule().findings(facts)
        #expect(found.count == 1 && found[0].summary.hasPrefix("30 queued records"), "\(found.map(\.summary))")
        #expect(QueueAttemptsRule().findings(try Self.facts("stranded-refresh")).isEmpty, "BGeo deletes by status, not by count")
    }

    @Test func queuePrunedBlamesTheStalledUploads() throws {
        var facts = try Self.facts("stranded-refresh")
        let found = QueuePrunedRule().findings(facts)
        #expect(found.count == 1 && found[0].summary.hasPrefix("8 records were evicted"))
        facts.prunes = [:]
        #expect(QueuePrunedRule().findings(facts).isEmpty)
    }

    @Test func syncDeferredExplainsEachReason() throws {
        var facts = try Self.facts("healthy-day")
        let found = SyncDeferredRule().findings(facts)
        #expect(!found.isEmpty && found.allSatisfy { $0.severity == .info && $0.responsible == .appConfig })
        facts.deferrals = [:]
        #expect(SyncDeferredRule().findings(facts).isEmpty)
    }

    @Test func trackingGapTellsAKilledProcessFromAStationaryPhone() throws {
        let kill = TrackingGapRule().findings(try Self.facts("process-kill"))
        #expect(kill.contains { $0.severity == .warning && $0.responsible == .device }, "\(kill.map(\.summary))")
        var facts = try Self.facts("process-kill")
        facts.gaps = []
        #expect(TrackingGapRule().findings(facts).isEmpty)
    }
}

extension FindingRuleTests {
    /// A new rule is three files of code (the rule, its test here, `FindingRules.all`):
    /// `timeline --help` lists the codes from the list (`Finding.codes`), and the README, which
    /// describes each code for support engineers, must name every one.
    @Test func theReadmeDescribesEveryCode() throws {
        let readme = try String(contentsOfFile: Self.samples + "/../README.md", encoding: .utf8)
        #expect(Finding.codes == FindingRules.all.map(\.code))
        for code in Finding.codes {
            #expect(readme.contains("`\(code)`"), "README does not describe \(code)")
        }
    }
}
