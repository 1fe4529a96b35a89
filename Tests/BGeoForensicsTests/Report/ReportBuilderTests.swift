import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

@Suite struct ReportBuilderTests {
    @Test func traceHasEveryDecision() {
        let doc = ReportFixture.built.document
        let trace = ReportTrace(fixes: doc.trace.allFixes(), geofences: doc.trace.geofences, queueHeadUUID: doc.trace.queueHeadUUID)
        #expect(trace.fixes.count > 200)
        #expect(doc.trace.counts() == trace.counts())
        // The demo config says Adjust: replay moves the teleports and rejects the inaccurate fixes.
        #expect(trace.count(.adjusted) >= 5)
        let reasons = Set(trace.fixes.filter { $0.decision.decision == .rejected }.compactMap(\.reason))
        #expect(reasons == ["accuracy"])
        #expect(trace.count(.rejected) == 7)
        #expect(trace.geofences.count == 1)
        #expect(trace.queueHeadUUID != nil)
        // Time order.
        #expect(zip(trace.fixes, trace.fixes.dropFirst()).allSatisfy { $0.fix.time <= $1.fix.time })
    }

    @Test func findingsMostSevereFirstWithEvidence() throws {
        let doc = ReportFixture.built.document
        #expect(zip(doc.findings, doc.findings.dropFirst()).allSatisfy { $0.severity <= $1.severity })
        #expect(doc.findings.map(\.code) == ["poison.dropped", "tracking.gap", "queue.stranded"])
        #expect(doc.findings[1].summary.contains("relaunched"))
        let stranded = doc.findings[2]
        #expect(stranded.evidence.map(\.anchor) == ["log-438", "log-441", "log-444"])
        #expect(stranded.notes.contains("state http.failures = 2"))
        // Every evidence row is embedded even though tables are capped at 60 rows, and named uuids
        // that are still queued link to their queue row.
        let anchors = Set(doc.tables.flatMap(\.anchors))
        for f in doc.findings { for e in f.evidence { #expect(anchors.contains(e.anchor), "\(e.anchor) missing") } }
        let linked = stranded.uuids.compactMap { doc.uuidAnchors[ExactText($0)] }
        #expect(linked.count == stranded.uuids.count && !linked.isEmpty)
        for anchor in linked { #expect(anchors.contains(anchor)) }
    }

    @Test func replaySectionAndDepth() throws {
        let doc = ReportFixture.built.document
        #expect(doc.replay.odometerRecorded != nil)
        #expect(doc.replay.odometerReplayed ?? 0 > 0)
        #expect(doc.replay.counts.first { $0.label == "rejected: accuracy" }?.count == 7)
        #expect(!doc.replay.topContributors.isEmpty)
        // Depth climbs to 20, drops to 0 after each 2xx, ends at the queue's size.
        let depth = try doc.queueDepth.points()
        #expect(depth.map(\.depth).max() == 68)
        #expect(depth.last?.depth == doc.summary.queue.count)
        #expect(depth.contains { $0.depth == 0 })
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

    /// Row 52 of the damaged sample has two warnings (bad JSON kept as text; not replayed): the
    /// finding counts rows, not warnings, and links each row once.
    @Test func unreadableRowsFindingCountsEachRowOnce() throws {
        let (dump, summary) = try SimulatedDumps.shared.dump(.damagedRows)
        let doc = try ReportBuilder.build(dump: dump, options: ReportOptions(generatedAt: 0))
        let finding = try #require(doc.findings.first { $0.code == "dump.unreadable_rows" })
        let rows = summary.damagedQueueRowIds.count + summary.damagedLogRowIds.count
        #expect(doc.summary.warnings.all.filter { $0.table == "log_entries" && $0.rowId == 52 }.count == 2)
        #expect(finding.summary == "\(rows) rows could not be read completely and 1 other input problem found; everything else was read (see Warnings).")
        let anchors = finding.evidence.map(\.anchor)
        #expect(anchors.count == ReportFindings.evidenceLimit)
        #expect(Set(anchors).count == anchors.count)
    }

    /// The report reads the log once (the timeline's scan feeds the trace) and merges on a second
    /// thread: its trace must be the one the stand-alone replay builds, fix for fix.
    @Test(arguments: Scenario.allCases)
    func sharedScanGivesTheStandAloneTrace(scenario: Scenario) throws {
        let (dump, _) = try SimulatedDumps.shared.dump(scenario)
        let doc = try ReportBuilder.build(dump: dump, options: ReportOptions(generatedAt: 0))
        let alone = try Dump(path: SimulatedDumps.shared.path(scenario))
        let configuration = ReplayConfiguration.recorded(from: alone)
        let result = ReplayEngine.run(trace: TraceBuilder.completeTrace(dump: alone), config: configuration.filter,
                                      source: configuration.sourceDescription, notes: configuration.notes, isWhatIf: false)
        let reference = ReportTrace(replay: result, geofences: [], queueHeadUUID: nil)
        let fixes = doc.trace.allFixes()
        #expect(fixes.count == reference.fixes.count)
        #expect(fixes.map(\.fix.time) == reference.fixes.map(\.fix.time))
        #expect(fixes.map(\.fix.statedUUID) == reference.fixes.map(\.fix.statedUUID))
        #expect(fixes.map(\.decision.decision) == reference.fixes.map(\.decision.decision))
        #expect(fixes.map(\.fix.latitude) == reference.fixes.map(\.fix.latitude))
        #expect(fixes.map(\.fix.evidence.anchor) == reference.fixes.map(\.fix.evidence.anchor))
        // Every warning the stand-alone trace gives is in the report (which adds the timeline's).
        #expect(Set(alone.warnings.all).isSubset(of: Set(doc.summary.warnings.all)))
    }

    /// Past one batch (8,192 lines) the parsed lines cross threads in several batches while the
    /// queue is still being read: the merged trace must not depend on how they were cut.
    @Test func sharedScanAcrossManyBatchesGivesTheStandAloneTrace() throws {
        let dir = TestDirectory("report-batches")
        let path = dir.file("large.db")
        _ = try Simulator.writeLarge(to: path, records: 20_000, seed: 9)
        let doc = try ReportBuilder.build(dump: try Dump(path: path), options: ReportOptions(generatedAt: 0))
        let alone = try Dump(path: path)
        let configuration = ReplayConfiguration.recorded(from: alone)
        let trace = TraceBuilder.completeTrace(dump: alone)
        #expect(trace.stats.logLocations > 2 * 8192)
        let result = ReplayEngine.run(trace: trace, config: configuration.filter, source: configuration.sourceDescription,
                                      notes: configuration.notes, isWhatIf: false)
        let reference = ReportTrace(replay: result, geofences: [], queueHeadUUID: nil)
        let fixes = doc.trace.allFixes()
        #expect(fixes.count == reference.fixes.count)
        #expect(fixes.map(\.fix.time) == reference.fixes.map(\.fix.time))
        #expect(fixes.map(\.fix.statedUUID) == reference.fixes.map(\.fix.statedUUID))
        #expect(fixes.map(\.fix.latitude) == reference.fixes.map(\.fix.latitude))
        #expect(fixes.map(\.decision.decision) == reference.fixes.map(\.decision.decision))
    }

    /// Regression (stop 47): the report listed a device's UTC offset only when written `±hh:mm`;
    /// a queue row written `+0530` (a form `parse` takes, and the time the report places it at)
    /// left "not recorded (every timestamp is written in UTC)" on the page.
    @Test func deviceOffsetWrittenWithoutColonIsListed() throws {
        let dir = TestDirectory("report-device-offset")
        let shifted = "strftime('%Y-%m-%dT%H:%M:%S', timestamp, '+330 minutes') || substr(timestamp, 20, 4) || '+0530'"
        let path = try ReportQueueFactsTests.altered("healthy-day.db", """
            UPDATE location_events SET timestamp = \(shifted),
              json = json_set(json, '$.timestamp', \(shifted)) WHERE id = (SELECT min(id) FROM location_events);
            """, in: dir)
        let dump = try Dump(path: path)
        let document = try ReportBuilder.build(dump: dump, options: ReportOptions(generatedAt: 1_785_100_000, maxTableRows: 60))
        #expect(document.deviceOffsets == [19_800])
        #expect(HTMLReportRenderer().render(document).contains("<th>Device offset</th><td>UTC+05:30 (from timestamps"))
        #expect(dump.warnings.all.isEmpty, "\(dump.warnings.all)")
    }
}
