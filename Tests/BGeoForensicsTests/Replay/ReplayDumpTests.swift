import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// TraceBuilder and the engine on real SQLite dumps written with DumpWriter (see ReplayFixture).
@Suite struct ReplayDumpTests {
    func fixtureDump(_ dir: TestDirectory, config: JSONValue? = nil, useDefaultConfig: Bool = true,
                     configLogLine: JSONValue? = nil) throws -> Dump {
        let path = dir.file("bgeo.db")
        if useDefaultConfig {
            try ReplayFixture.write(to: path, configLogLine: configLogLine)
        } else {
            try ReplayFixture.write(to: path, config: config, configLogLine: configLogLine)
        }
        return try Dump(path: path)
    }

    @Test func completeTraceMergesQueueAndLogAndKeepsGeofencesAside() throws {
        let dir = TestDirectory("replay-trace")
        let dump = try fixtureDump(dir)
        let trace = TraceBuilder.completeTrace(dump: dump)
        #expect(trace.fixes.count == 33)
        #expect(trace.geofences.map(\.uuid) == ["gf-1"])
        #expect(!trace.fixes.contains { $0.uuid == "gf-1" })
        let s = trace.stats
        #expect(s.queueLocations == 26)
        #expect(s.logLocations == 10)
        #expect(s.duplicates == 5)
        #expect(s.logRejects == 2 && s.logAdjusts == 1 && s.adjustsMerged == 1)
        #expect(s.rawPositions == 13 && s.smoothedOnly == 20)
        #expect(s.skippedLines == 1)
        // Sorted by time, indexes match positions, the log-only walk comes first.
        #expect(trace.fixes.map(\.time) == trace.fixes.map(\.time).sorted())
        #expect(trace.fixes.enumerated().allSatisfy { $0.offset == $0.element.index })
        #expect(trace.fixes.first?.uuid == "l-5")
        // Dedupe: q-0 is one fix, at the raw position of its log line, known by both rows.
        let q0 = try #require(trace.fixes.first { $0.uuid == "q-0" })
        #expect(trace.fixes.filter { $0.uuid == "q-0" }.count == 1)
        #expect(q0.longitude == 21.00001 && q0.isRaw && q0.source == .logLocation)
        #expect(q0.rowId == 1 && q0.logId != nil)
        #expect(q0.recordedOdometer == 1000)
        // Queue-only fixes keep the queue position and are marked smoothed.
        let q7 = try #require(trace.fixes.first { $0.uuid == "q-7" })
        #expect(q7.longitude == 21 && !q7.isRaw && q7.source == .queue)
        // The adjusted fix is one fix at the adjust line's raw position, keeping its uuid.
        let q12 = try #require(trace.fixes.first { $0.uuid == "q-12" })
        #expect(q12.source == .logAdjust && q12.longitude > 21.01 && q12.accuracy == 10)
        // Filter lines have no uuid; the engine's reason is kept.
        let rejects = trace.fixes.filter { $0.source == .logReject }
        #expect(rejects.map(\.recordedReason) == [.teleport, .accuracy])
        #expect(rejects.allSatisfy { $0.uuid.isEmpty && $0.logId != nil })
        // The unreadable line is a located warning.
        #expect(dump.warnings.all.contains { $0.table == "log_entries" && $0.rowId == ReplayFixture.badLineId && $0.message.contains("not replayed") })
    }

    @Test func replayUnderTheRecordedConfigCountsWhatWasPlanted() throws {
        let dir = TestDirectory("replay-recorded")
        let dump = try fixtureDump(dir)
        let configuration = ReplayConfiguration.recorded(from: dump)
        #expect(configuration.source == "state.config")
        #expect(configuration.filter == FilterConfig(locationFilterMaxAccuracy: 50))
        let result = ReplayEngine.run(trace: TraceBuilder.completeTrace(dump: dump), config: configuration.filter,
                                      source: configuration.sourceDescription)
        #expect(result.fixes.count == 33)
        #expect(result.accepted == 24 && result.adjusted == 0)
        #expect(result.rejectedAccuracy == 5 && result.rejectedUnknownAccuracy == 1)
        #expect(result.rejectedTeleport == 4 && result.rejectedTime == 0)
        let teleported = Set(result.decisions.filter { $0.reason == .teleport }.map { result.fixes[$0.index].label })
        #expect(teleported.contains("tp-5") && teleported.contains("tp-15") && teleported.contains("q-12"))
        #expect(result.odometerRecorded == 2400)
        // 24 steps of 100 m, less the Kalman lag at the end (a few tens of metres).
        #expect(result.odometerReplayed > 2300 && result.odometerReplayed < 2405)
        #expect(abs(result.odometerDifferencePercent ?? 99) < 5)
        // tp-5, tp-15, the four queue fixes with poor accuracy, and q-12 (engine adjusted, replay rejects).
        #expect(result.engineDisagreements == 7)
        #expect(result.diagnosis.contains { $0.contains("agrees with the recorded") })
        #expect(result.diagnosis.contains { $0.contains("4 fixes rejected as teleports") })
        // No secrets in the output: only the filter keys are echoed.
        let text = JSONWriter().string(result.json(includeDecisions: true))
        #expect(!text.contains("secret-token"))
    }

    @Test func whatIfPassThroughLetsTheTeleportsInAndTheDiagnosisNamesThem() throws {
        let dir = TestDirectory("replay-whatif")
        let dump = try fixtureDump(dir)
        let trace = try TraceBuilder.storedTrace(dump: dump)
        let recorded = ReplayConfiguration.recorded(from: dump)
        var whatIf = recorded
        try whatIf.apply(set: "LOCATIONFILTERPOLICY=PassThrough")
        #expect(whatIf.filter.policy == .passThrough)
        #expect(whatIf.sourceDescription.contains("locationFilterPolicy=PassThrough"))
        let comparison = try ReplayComparison(trace: trace, recorded: recorded, whatIf: whatIf)
        #expect(comparison.differenceCount == 4)
        var listed = 0
        try comparison.forEachDifference { _, _, _ in listed += 1 }
        #expect(listed == 4)
        #expect(comparison.whatIf.rejectedAccuracy == 5)  // the accuracy gate still applies
        #expect(comparison.whatIf.accepted == 28)
        let diagnosis = comparison.whatIf.diagnosis
        #expect(diagnosis.contains { $0.contains("more than the recorded") })
        #expect(diagnosis.contains { $0.contains("tp-5") || $0.contains("tp-15") })
        let json = try JSONParser.parse(try StreamedReplayTests.written(dir, "compare.json") { output in
            try comparison.writeJSON(to: output, extra: [:], after: [:], includeDecisions: true, top: 10, redactor: .disabled)
        })
        #expect(json["compare"]?["differences"]?.arrayValue?.count == 4)
        #expect(json["compare"]?["recorded"]?["accepted"] == .int(24))
        #expect(json["compare"]?["whatIf"]?["decisions"]?.arrayValue?.count == comparison.whatIf.fixCount)
    }

    @Test func configSourcesAndOverrides() throws {
        let dir = TestDirectory("replay-config")
        // No state.config, no config line: engine defaults.
        let bare = try fixtureDump(dir, config: nil, useDefaultConfig: false)
        let defaults = ReplayConfiguration.recorded(from: bare)
        #expect(defaults.source.hasPrefix("engine defaults"))
        #expect(defaults.filter == FilterConfig())
        // The last config log line when state.config is absent.
        let dir2 = TestDirectory("replay-config2")
        let logged = try fixtureDump(dir2, config: nil, useDefaultConfig: false,
                                     configLogLine: ["locationFilterPolicy": "Adjust", "kalmanProfile": "aggressive"])
        let fromLog = ReplayConfiguration.recorded(from: logged)
        #expect(fromLog.source.contains("config log line"))
        #expect(fromLog.filter.policy == .adjust && fromLog.filter.kalmanProfile == .aggressive)
        #expect(fromLog.history.isEmpty)
        // A state.config that differs from a logged config: the change is noted.
        let dir3 = TestDirectory("replay-config3")
        let changed = try fixtureDump(dir3, configLogLine: ["locationFilterPolicy": "PassThrough"])
        let noted = ReplayConfiguration.recorded(from: changed)
        #expect(noted.source == "state.config")
        #expect(noted.notes.contains { $0.contains("1 of 1 config log lines") && $0.contains("PassThrough") })
        // --config file, then --set, case-insensitive keys keep the SDK spelling.
        let file = dir.file("whatif.json")
        try Data(#"{"config": {"locationFilterMaxSpeed": 30, "odometerAccuracyThreshold": 20}}"#.utf8).write(to: URL(fileURLWithPath: file))
        var c = defaults
        try c.apply(configFile: file)
        try c.apply(set: "locationfiltermaxspeed=40")
        #expect(c.filter.locationFilterMaxSpeed == 40 && c.filter.odometerAccuracyThreshold == 20)
        #expect(c.sdkConfig.object.keys.contains("locationFilterMaxSpeed"))
        // Bad overrides are usage errors, not silent defaults.
        #expect(throws: UsageError.self) { try c.apply(set: "locationFilterMaxSpeed=fast") }
        #expect(throws: UsageError.self) { try c.apply(set: "url=https://x") }
        #expect(throws: UsageError.self) { try c.apply(set: "noequals") }
        #expect(throws: UsageError.self) { try c.apply(configFile: dir.file("missing.json")) }
    }

    @Test func longPingAndEmptyDumpsReplay() throws {
        let dir = TestDirectory("replay-longping")
        let path = dir.file("queue.db")
        let w = try DumpWriter(path: path, layout: .longping)
        for i in 0..<4 {
            try w.insertRecord(ReplayFixture.record("p-\(i)", Double(10 * i), lat: ReplayFixture.lat(i), accuracy: i == 2 ? 200 : 10,
                                                    odometer: Double(100 * i)))
        }
        try w.close()
        let result = ReplayEngine.run(trace: TraceBuilder.completeTrace(dump: try Dump(path: path)), config: FilterConfig(),
                                      source: "engine defaults")
        #expect(result.fixes.map(\.uuid) == ["p-0", "p-1", "p-2", "p-3"])
        #expect(result.accepted == 3 && result.rejectedAccuracy == 1)
        #expect(result.odometerRecorded == 300)

        let emptyPath = dir.file("empty.db")
        try DumpWriter(path: emptyPath, layout: .current).close()
        let empty = ReplayEngine.run(trace: TraceBuilder.completeTrace(dump: try Dump(path: emptyPath)), config: FilterConfig(),
                                     source: "engine defaults")
        #expect(empty.fixes.isEmpty && empty.odometerReplayed == 0 && empty.odometerRecorded == nil)
        #expect(empty.text(title: "empty.db").contains("0 fixes"))
        #expect(empty.json()["fixes"] == .int(0))
    }

    @Test func legacyDumpReplaysToo() throws {
        let dir = TestDirectory("replay-legacy")
        let path = dir.file("legacy.db")
        let w = try DumpWriter(path: path, layout: .legacy(withState: false))
        for i in 0..<5 {
            try w.insertRecord(ReplayFixture.record("q-\(i)", Double(10 * i), lat: ReplayFixture.lat(i), accuracy: 10))
        }
        try w.close()
        let dump = try Dump(path: path)
        let trace = TraceBuilder.completeTrace(dump: dump)
        #expect(trace.fixes.count == 5)
        let result = ReplayEngine.run(fixes: trace.fixes, config: FilterConfig())
        #expect(result.accepted == 5)
        #expect(result.odometerReplayed > 300 && result.odometerReplayed < 400)
    }
}
