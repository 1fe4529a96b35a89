import BGeoForensics
import Foundation
import BGeoSQLite

/// One script per sample scenario, each built from the shared pieces.
extension ScenarioScripts {
    // MARK: scenarios

    static func healthyDay(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current)
        let sim = makeSimulation(writer: writer, seed: seed, start: Simulator.baseTime, accessExpires: Simulator.baseTime + 90 * day,
                                 overrides: ["batchSync": true, "maxBatchSize": 50, "autoSyncThreshold": 5])
        days(sim, records: records) { start, index in
            workingDay(sim, start: start, dayIndex: index, lastTripExtras: ["tripNote": "<script>alert(1)</script>"])
        }
        try finish(sim, writer, summary: &summary)
    }

    static func strandedRefresh(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current)
        let t0 = Simulator.baseTime
        // The access token dies at 07:30; the first refresh works (new token for 1 h), then the
        // refresh token is revoked at 08:00 and every refresh after the 08:30 expiry fails.
        var accessExpiry = t0 + 1.5 * 3600
        let revokedAt = t0 + 2 * 3600
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: accessExpiry,
                                 overrides: ["maxRecordsToPersist": 400])
        var refreshes = 0
        sim.server = { sim, _ in
            sim.now < accessExpiry ? HTTPReply(status: 200, response: "{\"ok\":true}")
                : HTTPReply(status: 401, response: "{\"error\":\"token_expired\",\"message\":\"JWT expired\"}")
        }
        sim.refreshServer = { sim in
            refreshes += 1
            if sim.now < revokedAt { return HTTPReply(status: 200, response: "") }
            return refreshes % 3 == 0 ? HTTPReply(status: 400, response: "{\"error\":\"invalid_grant\"}")
                : HTTPReply(status: 401, response: "{\"error\":\"invalid_token\",\"message\":\"refresh token revoked\"}")
        }
        sim.rotate = { sim in
            rotateTokens(sim, lifetime: 3600)
            accessExpiry = sim.now + 3600
        }
        days(sim, records: records) { start, index in workingDay(sim, start: start, dayIndex: index) }
        try finish(sim, writer, summary: &summary)
    }

    static func poisonBatch(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current)
        let t0 = Simulator.baseTime
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 90 * day,
                                 overrides: ["batchSync": true, "maxBatchSize": 25, "autoSyncThreshold": 25])
        var accepted = (day: 0, count: 0)
        var poison: Set<String> = []
        sim.onAccepted = { uuid in
            let dayIndex = Int(((sim.now - t0) / day).rounded(.down))
            accepted = accepted.day == dayIndex ? (dayIndex, accepted.count + 1) : (dayIndex, 1)
            // One record per day the server cannot process: the day's 60th fix.
            if accepted.count == 60 { poison.insert(uuid) }
        }
        // From 10:30 the server throttles the next two uploads (429), then recovers.
        var throttleArmedAt = t0 + 4.5 * 3600
        var throttled = 0
        sim.server = { sim, batch in
            if batch.contains(where: { poison.contains($0.uuid) }) {
                return HTTPReply(status: 422, response: "{\"error\":\"unprocessable entity\",\"detail\":\"extras.shiftId: value out of range\"}")
            }
            if sim.now >= throttleArmedAt, throttled < 2 {
                throttled += 1
                if throttled == 2 { throttleArmedAt += day; throttled = -100 }
                return HTTPReply(status: 429, response: "{\"error\":\"rate_limited\",\"retry_after\":60}")
            }
            if throttled < 0, sim.now >= throttleArmedAt { throttled = 0 }
            return HTTPReply(status: 200, response: "{\"ok\":true}")
        }
        // A long tunnel on the first cellular drive after 09:54: 8 minutes offline (status 0, backoff).
        var tunnelStart: Double?
        var tunnelDay = -1
        sim.beforeFix = { t in
            let dayIndex = Int(((t - t0) / day).rounded(.down))
            let dayStart = t0 + Double(dayIndex) * day
            if tunnelStart == nil, tunnelDay != dayIndex, sim.transport == "cellular", t >= dayStart + 3.9 * 3600 {
                tunnelStart = t
                tunnelDay = dayIndex
                sim.advance(to: t - 0.5)
                sim.connectivity("none")
            } else if let start = tunnelStart, t > start + 480 {
                tunnelStart = nil
                sim.advance(to: t - 0.5)
                sim.connectivity("cellular")
            }
        }
        days(sim, records: records) { start, index in workingDay(sim, start: start, dayIndex: index) }
        try finish(sim, writer, summary: &summary)
    }

    static func teleports(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current)
        let t0 = Simulator.baseTime + 3600
        // Recorded with the filter off: every planted fix was accepted and counted by the odometer.
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 90 * day,
                                 overrides: ["disableLocationFilter": true, "locationFilterPolicy": "PassThrough",
                                             "batchSync": true, "maxBatchSize": 100, "autoSyncThreshold": 10])
        let teleportAt: Set<Int> = [70, 160, 262, 351, 455, 560]
        let lowAccuracyAt: Set<Int> = [25, 48, 110, 133, 200, 222, 290, 310, 390, 420, 500, 521, 600, 633]
        var planted = (teleports: 0, low: 0)
        var routeLength = 0.0
        days(sim, records: records) { start, index in
            let t = start + 3600
            startDay(sim, at: t, dayIndex: index)
            sim.connectivity("cellular")
            sim.app("Route started", data: ["routeId": .string("WAW-BEL-\(index + 1)")])
            let route = index % 2 == 0 ? Places.longDrive : Places.longDrive.reversed()
            coldStart(sim, at: route[0], t: t)
            let leg = sim.drive(route, start: t + 120, cruise: 22...33, tamper: { i in
                if teleportAt.contains(i) {
                    planted.teleports += 1
                    return .teleport(metres: sim.rng.double(25_000...320_000), bearing: sim.rng.double(0...359))
                }
                if lowAccuracyAt.contains(i) {
                    planted.low += 1
                    return .lowAccuracy(GeoMath.round(sim.rng.double(150...500), 0))
                }
                return .none
            })
            routeLength += leg.distance
            sim.stay(at: route[route.count - 1], from: leg.end, until: leg.end + 1200, heartbeatEvery: 600)
            sim.app("Route finished", data: ["routeId": .string("WAW-BEL-\(index + 1)")])
            sim.logUpload()
        }
        summary.plantedTeleports = planted.teleports
        summary.plantedLowAccuracy = planted.low
        summary.routeLength = routeLength
        try finish(sim, writer, summary: &summary)
    }

    static func processKill(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current)
        let t0 = Simulator.baseTime + 3600
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 90 * day, overrides: [:])
        var headlessFixes = 0
        days(sim, records: records) { start, index in
            let t = start + 3600
            let leg = morningToDepot(sim, at: t, dayIndex: index, leaveAt: t + 600)
            sim.stay(at: Places.depot, from: leg.end, until: leg.end + 240)
            sim.app("App moved to background")
            // The OS kills the process about 6 minutes after the stop: nothing is logged. The van
            // leaves the depot soon after, and only the stationary region's exit wakes the app,
            // 40 minutes after the last fix, far along the road.
            let relaunch = leg.end + 40 * 60
            sim.retryTimerEnabled = false
            sim.advance(to: relaunch)
            sim.retryTimerEnabled = true
            sim.sessionStart(reason: "region_exit", relaunch: true)
            sim.log("wake.region.exit", level: 3, data: ["identifier": "stationary", "radius": 200])
            sim.tick(8)
            sim.log("headless.dispatch", level: 4, data: ["event": "motionchange"])
            sim.tick(4)
            headlessFixes = 0
            sim.onAccepted = { _ in
                if headlessFixes < 6 {
                    headlessFixes += 1
                    sim.log("headless.dispatch", level: 4, data: ["event": "location"])
                }
            }
            let far = sim.drive(Places.radzyminOnward, start: relaunch + 15, cruise: 15...27)
            sim.onAccepted = nil
            sim.app("App resumed", data: ["afterKill": true])
            sim.stay(at: Places.radzyminOnward[Places.radzyminOnward.count - 1], from: far.end, until: far.end + 3600)
            let back = sim.drive([Places.radzyminOnward[Places.radzyminOnward.count - 1], Places.radzymin, Places.marki, Places.customerNorth],
                                 start: sim.now + 30, cruise: 14...26)
            sim.stay(at: Places.customerNorth, from: back.end, until: back.end + 1800)
            sim.logUpload()
        }
        try finish(sim, writer, summary: &summary)
    }

    static func walMode(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current, wal: true)
        let t0 = Simulator.baseTime
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 90 * day,
                                 overrides: ["batchSync": true, "maxBatchSize": 50, "autoSyncThreshold": 10])
        days(sim, records: records.map { $0 / 2 }) { start, index in
            let leg = morningToDepot(sim, at: start, dayIndex: index, leaveAt: start + 70 * 60)
            sim.connectivity("wifi")
            sim.stay(at: Places.depot, from: leg.end, until: leg.end + 1800)
            sim.logUpload()
        }
        // Everything so far reaches the main file; the rest of the day lives only in the -wal,
        // as on a phone dumped while the app was running.
        try writer.checkpoint()
        summary.walOnlyQueueRowsAfterId = sim.lastRecordRowId
        summary.walOnlyLogRowsAfterId = sim.lastLogId
        try writer.begin()
        sim.fixLimit = records
        var rounds = 0
        repeat {
            sim.connectivity("cellular")
            let leg = sim.drive(Places.depotToNorth, start: sim.now + 5, cruise: 10...22)
            sim.app("Delivery completed", data: ["orderId": .string("A-\(2001 + rounds)")])
            sim.stay(at: Places.customerNorth, from: leg.end, until: leg.end + 1500)
            let back = sim.drive(Places.northToSouth, start: sim.now + 10, cruise: 12...25)
            if records != nil { _ = sim.drive(Places.southToDepot, start: back.end + 600, cruise: 10...18) }
            rounds += 1
        } while records != nil && !sim.isFull && rounds < 100_000
        try finish(sim, writer, summary: &summary, keepWAL: true)
    }

    static func legacySchema(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .legacy(withState: false))
        let t0 = Simulator.baseTime
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 90 * day,
                                 overrides: ["logLevel": "debug", "batchSync": true, "maxBatchSize": 50, "autoSyncThreshold": 40])
        days(sim, records: records) { start, index in
            let leg = morningToDepot(sim, at: start, dayIndex: index, leaveAt: start + 3600)
            sim.stay(at: Places.depot, from: leg.end, until: leg.end + 2700)
            let back = sim.drive(Places.depotToNorth, start: sim.now + 5, cruise: 10...22)
            sim.connectivity("wifi")
            sim.stay(at: Places.customerNorth, from: back.end, until: back.end + 1800)
            sim.logUpload()
        }
        try finish(sim, writer, summary: &summary, state: false)
    }

    static func longping(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .longping)
        let t0 = Simulator.baseTime
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 90 * day,
                                 overrides: ["autoSync": false, "logUrl": .null])
        sim.logThreshold = 0  // LongPing dumps carry no log table.
        days(sim, records: records) { start, _ in
            sim.advance(to: start)
            coldStart(sim, at: Places.home, t: start)
            sim.stay(at: Places.home, from: start + 50, until: start + 3600)
            let leg = sim.drive(Places.homeToDepot, start: sim.now + 5, cruise: 9...16)
            sim.stay(at: Places.depot, from: leg.end, until: leg.end + 1800)
            _ = sim.drive(Places.depotToNorth, start: sim.now + 5, cruise: 10...22)
        }
        try finish(sim, writer, summary: &summary, state: false)
        // The oldest batch was tried twice and its tail once more (other 4xx count an attempt).
        let reopened = try Database(path: path, mode: .readWriteCreate)
        try reopened.execute("""
            UPDATE queue SET attempts = 2 WHERE id <= 12;
            UPDATE queue SET attempts = 1 WHERE id > 12 AND id <= 30;
            """)
        summary.recordsWithAttempts = min(30, summary.queueRecords)
    }

    static func damagedRows(path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current)
        let t0 = Simulator.baseTime
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 90 * day,
                                 overrides: ["autoSync": false, "logLevel": "debug"])
        var accepted = 0
        var badQueue: [Int64] = []
        var badLog: [Int64] = []
        var failure: Error?
        sim.onAccepted = { uuid in
            accepted += 1
            let ts = sim.nowText
            func bad(_ json: String, timestamp: String? = nil, warns: Bool = true) {
                do {
                    let id = try writer.insertRecord(uuid: sim.rng.uuid(), timestamp: timestamp ?? ts, json: json, createdAt: ts)
                    if warns { badQueue.append(id) }
                } catch { failure = failure ?? error }
            }
            let u = sim.rng.uuid()
            switch accepted {
            case 10:
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"\(ts)\",\"coords\":{\"latitude\":52.2101,\"longitude\":21.0")
            case 20:
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"\(ts)\",\"coords\":{\"latitude\":\"NaN\",\"longitude\":21.0133,\"accuracy\":12.0},\"is_moving\":true}")
            case 30:
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"\(ts)\",\"coords\":{\"latitude\":123.4567,\"longitude\":21.0133,\"accuracy\":9.0},\"is_moving\":true}")
            case 40:
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"\(ts)\",\"coords\":{\"latitude\":52.2001,\"longitude\":-190.25,\"accuracy\":9.0},\"is_moving\":true}")
            case 50:
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"\(ts)\",\"odometer\":1234.5,\"activity\":{\"type\":\"in_vehicle\",\"confidence\":88},\"is_moving\":true}")
            case 60:
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"24/07/2026 07:31:02\",\"coords\":{\"latitude\":52.2,\"longitude\":21.0,\"accuracy\":9.0}}",
                    timestamp: "24/07/2026 07:31:02")
            case 70:
                // Readable variants: no milliseconds, and an offset instead of Z (no warning expected).
                let noMillis = Timestamp.format(sim.now, milliseconds: false)
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"\(noMillis)\",\"coords\":{\"latitude\":52.2012,\"longitude\":21.0211,\"accuracy\":8.0},\"is_moving\":true}",
                    timestamp: noMillis, warns: false)
            case 80:
                let local = Timestamp.format(sim.now + 7200).replacingOccurrences(of: "Z", with: "+02:00")
                bad("{\"uuid\":\"\(u)\",\"timestamp\":\"\(local)\",\"coords\":{\"latitude\":52.2015,\"longitude\":21.0244,\"accuracy\":8.0},\"is_moving\":true}",
                    timestamp: local, warns: false)
            case 25:
                do { badLog.append(try writer.insertLog(ts: "yesterday 14:00", level: 3, event: "heartbeat")) } catch { failure = failure ?? error }
            case 45:
                do {
                    badLog.append(try writer.insertLog(ts: ts, level: 4, event: "location", data: "{\"uuid\":\"\(uuid)\",\"latitude\":52.2,"))
                } catch { failure = failure ?? error }
            default:
                break
            }
        }
        days(sim, records: records) { start, index in
            startDay(sim, at: start, dayIndex: index)
            coldStart(sim, at: Places.home, t: start)
            sim.stay(at: Places.home, from: start + 50, until: start + 1800)
            let leg = sim.drive(Places.homeToDepot, start: sim.now + 5, cruise: 9...16)
            sim.stay(at: Places.depot, from: leg.end, until: leg.end + 1800)
            let next = sim.drive(Places.depotToNorth, start: sim.now + 5, cruise: 10...22)
            sim.stay(at: Places.customerNorth, from: next.end, until: next.end + 900)
        }
        if let failure { throw failure }
        summary.damagedQueueRowIds = badQueue
        summary.damagedLogRowIds = badLog
        try sim.finish()
        // A state value that is not JSON (warned about with the key, no row id).
        try writer.setState("http.next_attempt_at", raw: "{not json")
        summary.fixes = sim.fixes
        summary.acceptedFixes = sim.acceptedFixes
        summary.recordedOdometer = GeoMath.round(sim.pipeline.odometerTotal, 1)
        try count(writer, summary: &summary)
        try writer.close()
    }

    /// The benchmark shape: a tracker recording every second for weeks, autoSync off (the app
    /// syncs manually and has not yet), logLevel debug, so the queue holds every record.
    static func large(path: String, seed: UInt64, records: Int, summary: inout SimulationSummary) throws {
        let writer = try newWriter(path, layout: .current)
        let t0 = Simulator.baseTime
        let sim = makeSimulation(writer: writer, seed: seed, start: t0, accessExpires: t0 + 400 * day,
                                 overrides: ["autoSync": false, "logLevel": "debug", "maxDaysToPersist": 365, "heartbeatInterval": 3600])
        sim.fixInterval = 1
        var stop = 0
        days(sim, records: max(1, records)) { start, index in
            startDay(sim, at: start, dayIndex: index)
            let routes = [Places.homeToDepot, Places.depotToNorth, Places.northToSouth, Places.southToDepot, Places.depotToHome]
            var t = start + 3600
            for route in routes where !sim.isFull {
                let leg = sim.drive(route, start: t, cruise: 9...22)
                stop += 1
                sim.stay(at: route[route.count - 1], from: leg.end, until: leg.end + 5400, heartbeatEvery: 3600)
                t = sim.now + 5
            }
        }
        // Exactly `records` rows: the fix limit stops raw fixes; geofence-free, so queue = accepted fixes.
        try finish(sim, writer, summary: &summary)
    }
}
