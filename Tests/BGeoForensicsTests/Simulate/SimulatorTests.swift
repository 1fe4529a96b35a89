import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Every scenario written once (default seed) into a temp folder, shared by the suite.
final class SimulatedDumps: @unchecked Sendable {
    static let shared = SimulatedDumps()
    let directory = TestDirectory("simulate")
    var summaries: [Scenario: SimulationSummary] = [:]
    var failure: String?

    init() {
        for scenario in Scenario.allCases {
            do {
                summaries[scenario] = try Simulator.write(scenario: scenario, to: path(scenario))
            } catch {
                failure = "\(scenario.rawValue): \(error)"
            }
        }
    }

    func path(_ scenario: Scenario) -> String { directory.file(scenario.rawValue + ".db") }

    func dump(_ scenario: Scenario) throws -> (Dump, SimulationSummary) {
        if let failure { Issue.record("simulation failed: \(failure)") }
        let summary = try #require(summaries[scenario])
        return (try Dump(path: path(scenario)), summary)
    }
}

func records(_ dump: Dump) -> [QueueRecord] {
    var out: [QueueRecord] = []
    dump.forEachRecord { out.append($0) }
    return out
}

func logEntries(_ dump: Dump, events: [String] = []) -> [LogEntry] {
    var out: [LogEntry] = []
    dump.forEachLogEntry(LogQuery(events: events)) { out.append($0) }
    return out
}

func fileSHA256(_ path: String) throws -> String {
    let data = try #require(FileManager.default.contents(atPath: path))
    var hasher = SHA256Hasher()
    data.withUnsafeBytes { hasher.update($0) }
    return hasher.finalizeHex()
}

@Suite struct SimulatorTests {
    let dumps = SimulatedDumps.shared

    @Test(arguments: Scenario.allCases)
    func everyScenarioReadsBackWithTheSummaryCounts(scenario: Scenario) throws {
        let (dump, summary) = try dumps.dump(scenario)
        var rows = 0
        dump.forEachQueueRow { _ in rows += 1 }
        #expect(rows == summary.queueRecords)
        if scenario != .damagedRows {
            #expect(records(dump).count == summary.queueRecords)
            #expect(dump.warnings.all.isEmpty, "unexpected warnings: \(dump.warnings.all)")
        }
        if scenario != .longping {
            #expect(summary.logRows > 0)
            if scenario != .damagedRows { #expect(logEntries(dump).count == summary.logRows) }
        }
        #expect(summary.acceptedFixes > 100)
        #expect(Simulator.isSimulatedDump(dumps.path(scenario)))
    }

    @Test func sameSeedGivesIdenticalBytesAndAnotherSeedDoesNot() throws {
        let dir = TestDirectory("simulate-determinism")
        for scenario in [Scenario.healthyDay, .walMode] {
            let a = dir.file("a-\(scenario.rawValue).db"), b = dir.file("b-\(scenario.rawValue).db")
            let c = dir.file("c-\(scenario.rawValue).db")
            let summaryA = try Simulator.write(scenario: scenario, to: a, seed: 7)
            try Simulator.write(scenario: scenario, to: b, seed: 7)
            try Simulator.write(scenario: scenario, to: c, seed: 8)
            #expect(try fileSHA256(a) == fileSHA256(b))
            #expect(try fileSHA256(a) != fileSHA256(c))
            if scenario == .walMode {
                #expect(summaryA.files == [a, a + "-wal"])
                #expect(try fileSHA256(a + "-wal") == fileSHA256(b + "-wal"))
                #expect(!FileManager.default.fileExists(atPath: a + "-shm"))
            }
        }
    }

    @Test func healthyDayHasNoProblemsAndRealisticRecords() throws {
        let (dump, summary) = try dumps.dump(.healthyDay)
        let responses = logEntries(dump, events: ["http.response"])
        #expect(!responses.isEmpty)
        #expect(responses.allSatisfy { ($0.data?["status"]?.intValue ?? 0) / 100 == 2 })
        #expect(logEntries(dump, events: ["http.backoff", "queue.drop", "auth.refresh", "filter.reject"]).isEmpty)
        #expect(summary.geofences >= 4)
        let queued = records(dump)
        #expect(queued.count < 5)
        #expect(queued.contains { $0.json.contains("<script>alert(1)</script>") })
        #expect(queued.contains { $0.kind == .geofence && $0.geofence?.identifier == "home" })
        // Cold-start fixes carry is_moving null; every record has every coords field.
        let locations = logEntries(dump, events: ["location"])
        #expect(locations.filter { $0.data?["is_moving"] == .null }.count == 2)
        #expect(locations.allSatisfy { $0.data?["raw_latitude"]?.doubleValue != nil })
        let record = try JSONParser.parse(try #require(queued.first).json)
        for key in ["latitude", "longitude", "accuracy", "altitude", "altitude_accuracy", "speed", "speed_accuracy", "heading", "heading_accuracy"] {
            #expect(record["coords"]?[key] != nil, "coords.\(key)")
        }
        for key in ["uuid", "timestamp", "odometer", "activity", "battery", "is_moving", "extras"] { #expect(record[key] != nil, "\(key)") }
        let uuid = try #require(record["uuid"]?.stringValue)
        #expect(uuid.count == 36 && Array(uuid)[14] == "4" && "89ab".contains(Array(uuid)[19]))
        // The config line holds the secrets the redactor must hide.
        let config = try #require(logEntries(dump, events: ["config"]).first?.data)
        #expect(config.value(atPath: "authorization.accessToken")?.stringValue?.hasPrefix("eyJ") == true)
        #expect(config.value(atPath: "headers.X-Api-Key")?.stringValue?.hasPrefix("sk_live_") == true)
        let state = dump.engineState()
        #expect(state.schemaVersion == 3 && state.httpFailures == 0 && state.nextAttemptAt == nil)
        #expect(state.odometer == summary.recordedOdometer)
        #expect(logEntries(dump).contains { $0.uploaded })
    }

    @Test func strandedRefreshFollowsTheBackoffScheduleAndStaysAtTheCap() throws {
        let (dump, summary) = try dumps.dump(.strandedRefresh)
        #expect(summary.queueRecords == 400)
        let prunes = logEntries(dump, events: ["queue.prune"])
        #expect(summary.prunedRecords > 0)
        #expect(prunes.compactMap { $0.data?["count"]?.intValue }.reduce(0, +) == summary.prunedRecords)
        var failures = 0
        var delays: [Double] = []
        for entry in logEntries(dump, events: ["http.response", "http.backoff"]) {
            if entry.event == "http.response", (entry.data?["status"]?.intValue ?? 0) / 100 == 2 { failures = 0 }
            if entry.event == "http.backoff" {
                failures += 1
                let delay = try #require(entry.data?["delay_s"]?.doubleValue)
                #expect(entry.data?["failures"]?.intValue == failures)
                #expect(delay == BackoffSchedule.bgeo.delay(afterFailures: failures))
                delays.append(delay)
            }
        }
        #expect(delays.count == summary.httpFailures)
        #expect(delays.suffix(20).allSatisfy { $0 == 300 })
        let results = logEntries(dump, events: ["auth.refresh.result"])
        #expect(results.first?.data?["success"]?.boolValue == true)
        #expect(results.filter { $0.data?["success"]?.boolValue == false }.count == summary.httpFailures)
        #expect(results.filter { $0.level == 1 }.count == summary.httpFailures)
        let state = dump.engineState()
        #expect(state.httpFailures == summary.httpFailures && summary.httpFailures > 50)
        let next = try #require(state.nextAttemptAt.flatMap(Timestamp.parse))
        let last = try #require(logEntries(dump).last?.time)
        #expect(next > last - 300)
        let access = try #require(state.auth?["accessToken"]?.stringValue)
        let expiry = try #require(JWT.expiry(access))
        #expect(expiry < last)
    }

    @Test func poisonBatchIsSplitAndOnlyThePoisonRecordDropped() throws {
        let (dump, summary) = try dumps.dump(.poisonBatch)
        #expect(summary.poisonUUIDs.count == 1)
        let poison = try #require(summary.poisonUUIDs.first)
        let entries = logEntries(dump, events: ["http.request", "http.response", "http.backoff", "queue.drop"])
        let drops = entries.filter { $0.event == "queue.drop" }
        #expect(drops.count == 1)
        #expect(drops.first?.data?["uuids"] == .array([.string(poison)]))
        #expect(drops.first?.data?["status"]?.intValue == 422)
        let dropIndex = try #require(entries.firstIndex { $0.event == "queue.drop" })
        #expect(entries[dropIndex - 2].data?["count"]?.intValue == 1)
        #expect(entries.contains { $0.event == "http.response" && $0.data?["status"]?.intValue == 422 && $0.data?["count"]?.intValue == 25 })
        #expect(!records(dump).contains { $0.uuid == poison })
        let statuses = entries.filter { $0.event == "http.response" }.compactMap { $0.data?["status"]?.intValue }
        #expect(statuses.filter { $0 == 429 }.count == 2)
        #expect(statuses.contains(0))
        #expect(entries.filter { $0.event == "http.request" }.allSatisfy { ($0.data?["count"]?.intValue ?? 0) <= 25 })
    }

    @Test func teleportsArePlantedAsDocumented() throws {
        let (dump, summary) = try dumps.dump(.teleports)
        #expect(summary.plantedTeleports == 6)
        #expect(summary.plantedLowAccuracy == 14)
        let routeLength = try #require(summary.routeLength)
        #expect(abs(routeLength - 195_000) < 5_000)
        #expect(try #require(summary.recordedOdometer) > 3 * routeLength)
        let (config, _) = dump.recordedConfig()
        #expect(config["disableLocationFilter"]?.boolValue == true)
        let lowAccuracy = logEntries(dump, events: ["location"]).filter { ($0.data?["accuracy"]?.doubleValue ?? 0) > 100 }
        #expect(lowAccuracy.count == 14)
        #expect(lowAccuracy.allSatisfy { (150...500).contains($0.data?["accuracy"]?.doubleValue ?? 0) })
    }

    @Test func processKillLeavesAFortyMinuteGapWithRelaunchEvidence() throws {
        let (dump, _) = try dumps.dump(.processKill)
        let times = logEntries(dump, events: ["location"]).map(\.time)
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }.filter { $0 > 20 * 60 }
        #expect(gaps.count == 1)
        #expect(gaps.allSatisfy { (38 * 60...45 * 60).contains($0) })
        let relaunch = try #require(logEntries(dump, events: ["session.relaunch"]).first)
        #expect(relaunch.data?["reason"]?.stringValue == "region_exit")
        #expect(!logEntries(dump, events: ["wake.region.exit"]).isEmpty)
        #expect(logEntries(dump, events: ["headless.dispatch"]).count == 7)
        #expect(!logEntries(dump, events: ["motion.stationary"]).isEmpty)
    }

    @Test func walModeRowsAfterTheCheckpointExistOnlyInTheWAL() throws {
        let (dump, summary) = try dumps.dump(.walMode)
        let after = try #require(summary.walOnlyQueueRowsAfterId)
        let queued = records(dump)
        #expect(queued.count == summary.queueRecords)
        #expect(queued.contains { $0.rowId > after })
        #expect(dump.inputs.count == 2)
        #expect(dump.engineState().config != nil)
        // The main file alone (a copy, without its -wal) lacks them.
        let dir = TestDirectory("wal-main-only")
        try FileManager.default.copyItem(atPath: dumps.path(.walMode), toPath: dir.file("main.db"))
        let db = try Database(path: dir.file("main.db"), mode: .readOnly)
        let stmt = try db.prepare("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM location_events")
        #expect(try stmt.step())
        #expect(stmt.int64(1) <= after)
        #expect(stmt.int(0) < queued.count)
    }

    @Test func legacySchemaIsDetectedAsLegacy() throws {
        let (dump, summary) = try dumps.dump(.legacySchema)
        #expect(dump.layout.isLegacy)
        #expect(dump.layout.recordColumn == "data")
        #expect(!dump.layout.hasKindColumn)
        #expect(!dump.layout.hasState)
        #expect(summary.queueRecords > 0)
        let (_, source) = dump.recordedConfig()
        if case .logLine = source {} else { Issue.record("config should come from the log, not \(source)") }
    }

    @Test func longpingHasAttempts() throws {
        let (dump, summary) = try dumps.dump(.longping)
        #expect(dump.layout.format == .longping)
        let queued = records(dump)
        #expect(queued.count == summary.queueRecords)
        #expect(queued.filter { ($0.attempts ?? 0) > 0 }.count == 30)
        #expect(queued.compactMap(\.attempts).max() == 2)
        #expect(summary.recordsWithAttempts == 30)
    }

    /// The row ids documented in Samples/README.md.
    @Test func damagedRowsWarnAtTheDocumentedRowIds() throws {
        let (dump, summary) = try dumps.dump(.damagedRows)
        #expect(summary.damagedQueueRowIds == [11, 22, 33, 44, 55, 66])
        #expect(summary.damagedLogRowIds == [31, 52])
        let decoded = records(dump)
        _ = logEntries(dump)
        let queueWarnings = dump.warnings.all.filter { $0.table == "location_events" }
        #expect(queueWarnings.compactMap(\.rowId).sorted() == [11, 22, 33, 44, 55, 66])
        let logWarnings = dump.warnings.all.filter { $0.table == "log_entries" }
        #expect(logWarnings.compactMap(\.rowId).sorted() == [31, 52])
        #expect(dump.warnings.all.contains { $0.table == "state" && $0.message.contains("http.next_attempt_at") })
        #expect(decoded.count == summary.queueRecords - 6)
        // The readable variants (no milliseconds, +02:00 offset) are read, not warned about.
        #expect(decoded.contains { $0.rowId == 77 && !$0.timestampText.contains(".") })
        #expect(decoded.contains { $0.rowId == 88 && $0.timestampText.hasSuffix("+02:00") })
    }

    @Test func largeDumpHasExactlyTheRequestedRecords() throws {
        let dir = TestDirectory("simulate-large")
        let summary = try Simulator.writeLarge(to: dir.file("large.db"), records: 3000, seed: 42)
        #expect(summary.queueRecords == 3000)
        #expect(summary.logRows >= 3000)
        let dump = try Dump(path: dir.file("large.db"))
        #expect(records(dump).count == 3000)
        #expect(dump.warnings.all.isEmpty)
    }

    @Test func recordsOptionScalesAScenario() throws {
        let dir = TestDirectory("simulate-scaled")
        let summary = try Simulator.write(scenario: .poisonBatch, to: dir.file("p.db"), seed: 3, records: 1500)
        #expect(summary.acceptedFixes == 1500)
        #expect(summary.poisonUUIDs.count >= 2)
    }
}

@Suite struct SimulatorPartsTests {
    @Test func splitMixIsDeterministicAndUUIDsAreVersion4() {
        var a = SplitMix64(seed: 1), b = SplitMix64(seed: 1)
        #expect((0..<5).map { _ in a.next() } == (0..<5).map { _ in b.next() })
        var r = SplitMix64(seed: 9)
        for _ in 0..<100 {
            let u = Array(r.uuid())
            #expect(u.count == 36 && u[14] == "4" && "89ab".contains(u[19]) && u[8] == "-")
        }
    }

    /// The simulated engine is the replay pipeline: a dump written under Adjust (a policy no
    /// sample uses) logs each decision the way replay makes it, and replaying it agrees fix by fix.
    @Test func deviceFiltersWithTheReplayPipelineAndReplayAgrees() throws {
        let dir = TestDirectory("sim-filter")
        let path = dir.file("adjust.db")
        let writer = try ScenarioScripts.newWriter(path, layout: .current)
        let t0 = Simulator.baseTime
        // No url: nothing is uploaded, so every accepted fix stays in the queue.
        let sim = DeviceSimulation(writer: writer, seed: 3, start: t0,
                                   config: ["locationFilterPolicy": "adjust", "kalmanProfile": "aggressive", "logLevel": "verbose"])
        func fix(_ dt: Double, _ lat: Double, _ accuracy: Double) -> ProviderReading {
            ProviderReading(t: t0 + dt, latitude: lat, longitude: 21.0, accuracy: accuracy, speed: 10, heading: 0, altitude: 100,
                   activity: "in_vehicle", confidence: 90, isMoving: true, event: nil)
        }
        sim.addFix(fix(0, 52.0, 5))
        sim.addFix(fix(10, 52.001, 5))      // 111 m in 10 s: accepted
        sim.addFix(fix(20, 53.0, 5))        // 111 km in 10 s: moved to 600 m from the reference
        sim.addFix(fix(30, 52.0, 250))      // accuracy
        sim.addFix(fix(20, 52.02, 5))       // clock did not advance since the adjusted fix: time
        sim.addFix(fix(40, 52.0065, 8))     // accepted
        try sim.finish()
        try writer.close()
        #expect(sim.acceptedFixes == 4 && sim.rejectedFixes == 2)

        let dump = try Dump(path: path)
        let adjust = try #require(logEntries(dump, events: ["filter.adjust"]).first?.data)
        let moved = try #require(adjust["adjusted_latitude"]?.doubleValue)
        #expect(abs(Geodesy.haversine(52.001, 21.0, moved, 21.0) - 600) < 0.1)
        #expect(adjust["limit"]?.doubleValue == 60)
        let reasons = logEntries(dump, events: ["filter.reject"]).compactMap { $0.data?["reason"]?.stringValue }
        #expect(reasons == ["accuracy", "time"])

        let (config, _) = dump.recordedConfig()
        let replay = ReplayEngine.run(trace: TraceBuilder.completeTrace(dump: dump), config: FilterConfig(config: config),
                                      source: "recorded")
        #expect(replay.adjusted == 1 && replay.rejectedAccuracy == 1 && replay.rejectedTime == 1 && replay.accepted == 3)
        #expect(replay.engineDisagreements == 0)
        let recorded = try #require(dump.engineState().odometer)
        #expect(recorded > 650 && abs(replay.odometerReplayed - recorded) < 0.05)
    }

    @Test func walNormalizerKeepsChecksumsValid() throws {
        // Written twice with different SQLite salts, normalised, the -wal files match and read back.
        let dir = TestDirectory("walnorm")
        for name in ["a", "b"] {
            let path = dir.file(name + ".db")
            let writer = try DumpWriter(path: path, layout: .current, wal: true)
            try writer.checkpoint()
            try writer.insertLog(ts: "2026-07-24T06:00:00.000Z", level: 3, event: "heartbeat")
            try writer.close(keepWAL: true)
        }
        for name in ["a", "b"] {
            try WALNormalizer.normalize(path: dir.file(name + ".db-wal"), salt1: 0x1234_5678, salt2: 0x9ABC_DEF0)
            _ = unlink(dir.file(name + ".db-shm"))
        }
        #expect(try fileSHA256(dir.file("a.db-wal")) == fileSHA256(dir.file("b.db-wal")))
        let dump = try Dump(path: dir.file("a.db"))
        #expect(logEntries(dump).count == 1)
    }
}
