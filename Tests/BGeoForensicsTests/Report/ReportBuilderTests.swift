import Foundation
import Testing
@testable import BGeoForensics

@Suite struct ReportBuilderTests {
    @Test func traceHasEveryDecision() {
        let doc = ReportFixture.built.document
        let trace = doc.trace
        #expect(trace.fixes.count > 200)
        #expect(trace.count(.adjusted) > 0)
        let reasons = Set(trace.fixes.filter { $0.decision == .rejected }.compactMap(\.reason))
        #expect(reasons == ["accuracy", "teleport"])
        #expect(trace.geofences.count == 1)
        #expect(trace.queueHeadUUID != nil)
        // Time order.
        #expect(zip(trace.fixes, trace.fixes.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test func findingsMostSevereFirstWithEvidence() throws {
        let doc = ReportFixture.built.document
        let first = try #require(doc.findings.first)
        #expect(first.severity == .error)
        #expect(first.code == "uploads-failing")
        #expect(first.evidence.count == 3)
        #expect(doc.findings.contains { $0.code == "tracking-gap" && $0.summary.contains("session.relaunch") })
        #expect(doc.findings.contains { $0.code == "poison-dropped" })
        // Every evidence row is embedded even though tables are capped at 60 rows.
        let anchors = Set(doc.tables.flatMap(\.anchors))
        for f in doc.findings { for e in f.evidence { #expect(anchors.contains(e.anchor), "\(e.anchor) missing") } }
    }

    @Test func attemptsCarryOutcomeAndBackoff() {
        let attempts = ReportFixture.built.document.attempts
        let failing = attempts.suffix(3)
        #expect(failing.map(\.status) == [500, 503, 0])
        #expect(failing.map(\.outcome) == ["retry", "retry", "retry"])
        #expect(failing.map(\.backoffDelay) == [5, 10, 20])
        #expect(attempts.dropLast(3).allSatisfy { $0.outcome == "success" })
    }

    @Test func tablesAreCappedButCountExact() throws {
        let doc = ReportFixture.built.document
        let log = try #require(doc.tables.first { $0.id == "log" })
        #expect(log.total > 60)
        #expect(log.rows.count >= 60 && log.rows.count < log.total)
        #expect(log.note?.contains("bgeo-forensics logs") == true)
        let ids = log.rows.compactMap { $0.first?.intValue }
        #expect(ids == ids.sorted())
    }

    @Test func rowSamplerKeepsHeadTailAndForced() {
        var sampler = RowSampler<Int>(head: 3, tail: 2)
        for i in 0..<100 { sampler.add(i, force: i == 50 || i == 1) }
        #expect(sampler.items == [0, 1, 2, 50, 98, 99])
        #expect(sampler.seen == 100)
    }
}
