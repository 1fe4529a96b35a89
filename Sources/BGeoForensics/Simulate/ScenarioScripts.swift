import Foundation

/// The script of each scenario: which config the device ran, what it did through the day, and
/// how the server answered. The engine mechanics live in `DeviceSimulation`.
enum ScenarioScripts {
    static let day = 86_400.0

    // MARK: shared pieces

    /// The Config an app passed to ready(): every key of the guides, live secrets included.
    static func config(_ rng: inout SplitMix64, accessToken: String, refreshToken: String, apiKey: String,
                       overrides: JSONObject = [:]) -> JSONObject {
        var c: JSONObject = [
            "url": "https://track.northwind-logistics.example/api/v2/locations", "method": "POST",
            "headers": ["X-Api-Key": .string(apiKey), "X-Client": "driver-app/5.8.2"],
            "autoSync": true, "batchSync": false, "maxBatchSize": -1, "autoSyncThreshold": 0, "httpRootProperty": "location",
            "params": ["deviceId": "dev-882", "apiVersion": 2], "extras": ["fleetId": "north-42"],
            "disableAutoSyncOnCellular": false, "httpTimeoutMs": 30000,
            "authorization": [
                "strategy": "JWT", "accessToken": .string(accessToken), "refreshToken": .string(refreshToken),
                "refreshUrl": "https://track.northwind-logistics.example/device/auth/refresh",
                "refreshPayload": ["refresh_token": "{refreshToken}"], "refreshHeaders": ["X-Api-Key": .string(apiKey)],
            ],
            "logUrl": "https://track.northwind-logistics.example/api/v2/device-logs", "logLevel": "verbose", "logMaxDays": 3,
            "locationFilterMaxAccuracy": 100, "locationFilterMaxSpeed": 60, "locationFilterPolicy": "Conservative",
            "kalmanProfile": "DEFAULT", "disableLocationFilter": false, "odometerAccuracyThreshold": 0,
            "maxRecordsToPersist": -1, "maxDaysToPersist": 0, "heartbeatInterval": 900, "debug": false,
            "diagnosticExtras": ["appBuild": "5.8.2 (1187)"],
        ]
        for (key, value) in overrides { c[key] = value }
        return c
    }

    /// A simulation with fresh tokens (access token valid until `accessExpires`).
    static func makeSimulation(writer: DumpWriter, seed: UInt64, start: Double, accessExpires: Double,
                               overrides: JSONObject) -> DeviceSimulation {
        var rng = SplitMix64(seed: seed ^ 0x7A11_0C0F)
        let access = TokenFactory.jwt(subject: "driver-1042", issuedAt: start - 600, expires: accessExpires, kind: "access", rng: &rng)
        let refresh = TokenFactory.jwt(subject: "driver-1042", issuedAt: start - 600, expires: start + 30 * day, kind: "refresh", rng: &rng)
        let key = TokenFactory.apiKey(rng: &rng)
        let cfg = config(&rng, accessToken: access, refreshToken: refresh, apiKey: key, overrides: overrides)
        let sim = DeviceSimulation(writer: writer, seed: seed, start: start, config: cfg)
        sim.extras = cfg["extras"]?.objectValue ?? [:]
        return sim
    }

    /// Replaces the token pair after a successful refresh; the new access token lives `lifetime` s.
    static func rotateTokens(_ sim: DeviceSimulation, lifetime: Double) {
        sim.accessToken = TokenFactory.jwt(subject: "driver-1042", issuedAt: sim.now, expires: sim.now + lifetime, kind: "access", rng: &sim.rng)
        sim.refreshToken = TokenFactory.jwt(subject: "driver-1042", issuedAt: sim.now, expires: sim.now + 30 * day, kind: "refresh", rng: &sim.rng)
    }

    /// Two cold-start fixes at `place` whose is_moving is still unknown (null).
    static func coldStart(_ sim: DeviceSimulation, at place: GeoPoint, t: Double) {
        sim.emit(place, t: t + 18.4, speed: 0, heading: -1, altitude: 104, moving: nil, event: nil, tamper: .none)
        sim.emit(place, t: t + 49.7, speed: 0, heading: -1, altitude: 104, moving: nil, event: nil, tamper: .none)
        sim.log("motion.stationary", level: 3)
    }

    /// Day `dayIndex` begins at `t`: the app launches (first day) or starts with the phone (later days).
    static func startDay(_ sim: DeviceSimulation, at t: Double, dayIndex: Int) {
        sim.advance(to: t)
        sim.sessionStart(reason: dayIndex == 0 ? "launch" : "boot")
    }

    /// The usual morning: the app starts at `t` on wifi with two cold-start fixes at home, the
    /// driver leaves home at `leaveAt` and drives to the depot on cellular. Returns that drive.
    static func morningToDepot(_ sim: DeviceSimulation, at t: Double, dayIndex: Int, leaveAt: Double) -> (end: Double, distance: Double) {
        startDay(sim, at: t, dayIndex: dayIndex)
        sim.connectivity("wifi")
        coldStart(sim, at: Places.home, t: t)
        sim.stay(at: Places.home, from: t + 50, until: leaveAt)
        sim.connectivity("cellular")
        return sim.drive(Places.homeToDepot, start: sim.now + 5, cruise: 9...16)
    }

    /// A delivery driver's working day from `start` (06:00): home → depot → two customers → depot → home.
    /// `lastTripExtras` are merged into the records of the drive home.
    static func workingDay(_ sim: DeviceSimulation, start: Double, dayIndex: Int, lastTripExtras: JSONObject = [:]) {
        let t0 = start
        startDay(sim, at: t0, dayIndex: dayIndex)
        sim.connectivity("wifi")
        sim.app("Shift started", data: ["driverId": "drv-1042", "vehicle": "WX 4821K"])
        coldStart(sim, at: Places.home, t: t0)
        sim.stay(at: Places.home, from: t0 + 50, until: t0 + 70 * 60)
        // 07:10 leave home for the depot.
        sim.addGeofence(identifier: "home", action: "EXIT", latitude: Places.home.latitude, longitude: Places.home.longitude, at: sim.now + 1)
        sim.connectivity("cellular")
        var leg = sim.drive(Places.homeToDepot, start: sim.now + 5, cruise: 9...16)
        sim.addGeofence(identifier: "depot", action: "ENTER", latitude: Places.depot.latitude, longitude: Places.depot.longitude, at: leg.end + 20)
        sim.connectivity("wifi")
        sim.stay(at: Places.depot, from: sim.now, until: t0 + 3 * 3600)
        sim.logUpload()
        // 09:00 deliveries.
        sim.addGeofence(identifier: "depot", action: "EXIT", latitude: Places.depot.latitude, longitude: Places.depot.longitude, at: sim.now + 2)
        sim.connectivity("cellular")
        leg = sim.drive(Places.depotToNorth, start: sim.now + 5, cruise: 10...22)
        sim.app("Delivery completed: <b>Order</b> #A-1042 & \"fragile\"", data: ["orderId": "A-1042", "signedBy": "J. O'Brien"])
        sim.stay(at: Places.customerNorth, from: leg.end, until: leg.end + 35 * 60)
        leg = sim.drive(Places.northToSouth, start: sim.now + 10, cruise: 12...25)
        sim.app("Delivery completed", data: ["orderId": "A-1043"])
        sim.stay(at: Places.customerSouth, from: leg.end, until: leg.end + 50 * 60)
        leg = sim.drive(Places.southToDepot, start: sim.now + 10, cruise: 10...18)
        sim.addGeofence(identifier: "depot", action: "ENTER", latitude: Places.depot.latitude, longitude: Places.depot.longitude, at: leg.end + 15)
        sim.connectivity("wifi")
        sim.logUpload()
        sim.stay(at: Places.depot, from: sim.now, until: max(sim.now + 1800, t0 + 10.5 * 3600))
        // 16:30 drive home.
        sim.addGeofence(identifier: "depot", action: "EXIT", latitude: Places.depot.latitude, longitude: Places.depot.longitude, at: sim.now + 2)
        sim.connectivity("cellular")
        let saved = sim.extras
        for (key, value) in lastTripExtras { sim.extras[key] = value }
        leg = sim.drive(Places.depotToHome, start: sim.now + 5, cruise: 9...16)
        sim.addGeofence(identifier: "home", action: "ENTER", latitude: Places.home.latitude, longitude: Places.home.longitude, at: leg.end + 25)
        sim.connectivity("wifi")
        sim.stay(at: Places.home, from: sim.now, until: sim.now + 1900)
        sim.extras = saved
        sim.app("Shift ended", data: ["driverId": "drv-1042"])
        sim.logUpload()
    }

    /// Repeats `body(dayStart, dayIndex)` until the fix limit is reached (or once without a limit).
    static func days(_ sim: DeviceSimulation, records: Int?, _ body: (Double, Int) -> Void) {
        sim.fixLimit = records
        var index = 0
        repeat {
            body(Simulator.baseTime + Double(index) * day, index)
            index += 1
        } while records != nil && !sim.isFull && index < 100_000
    }

    /// Writes state, counts rows, closes the writer.
    static func finish(_ sim: DeviceSimulation, _ writer: DumpWriter, summary: inout SimulationSummary,
                       state: Bool = true, keepWAL: Bool = false) throws {
        try sim.finish(schemaState: state)
        summary.fixes = sim.fixes
        summary.acceptedFixes = sim.acceptedFixes
        summary.rejectedFixes = sim.rejectedFixes
        summary.geofences = sim.geofences
        summary.uploaded = sim.uploaded
        summary.requests = sim.requests
        summary.poisonUUIDs = sim.droppedUUIDs
        summary.httpFailures = sim.failures
        summary.prunedRecords = sim.pruned
        summary.recordedOdometer = GeoMath.round(sim.pipeline.odometerTotal, 1)
        try count(writer, summary: &summary)
        try writer.close(keepWAL: keepWAL)
    }

    static func count(_ writer: DumpWriter, summary: inout SimulationSummary) throws {
        func scalar(_ sql: String) throws -> Int {
            let stmt = try writer.database.prepare(sql)
            return try stmt.step() ? stmt.int(0) : 0
        }
        switch writer.layout {
        case .longping:
            summary.queueRecords = try scalar("SELECT COUNT(*) FROM queue")
            summary.recordsWithAttempts = try scalar("SELECT COUNT(*) FROM queue WHERE attempts > 0")
        default:
            summary.queueRecords = try scalar("SELECT COUNT(*) FROM location_events")
            summary.logRows = try scalar("SELECT COUNT(*) FROM log_entries")
        }
    }

    static func newWriter(_ path: String, layout: DumpWriter.Layout, wal: Bool = false) throws -> DumpWriter {
        let writer = try DumpWriter(path: path, layout: layout, wal: wal)
        try writer.database.execute("PRAGMA application_id = \(Simulator.applicationID)")
        // A big page cache keeps the random-uuid UNIQUE index in memory during million-row writes.
        try writer.database.execute("PRAGMA cache_size = -262144")
        try writer.begin()
        return writer
    }

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
