import BGeoForensics
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
}
