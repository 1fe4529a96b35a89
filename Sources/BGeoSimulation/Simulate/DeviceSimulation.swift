import BGeoForensics
import Foundation
import BGeoSQLite

/// A simulated BGeo engine writing its own dump: it runs each fix through the SDK's filter
/// pipeline (`ReplayPipeline`, the one replay-semantics.md defines — the same code `replay`
/// runs, so a replay of a simulated dump gives back its decisions and odometer), queues accepted records, and drains the queue to a scripted server under
/// the SDK's upload policy — classification, backoff and refresh come from `UploadPolicy.bgeo`
/// (never re-derived here), so a checker reading the log sees exactly the documented behaviour.
final class DeviceSimulation {
    struct Pending {
        var rowId: Int64
        var uuid: String
        var bytes: Int
    }

    let writer: DumpWriter
    var rng: SplitMix64
    var config: JSONObject
    let policy = UploadPolicy.bgeo
    /// The engine's filter, Kalman and odometer, configured from `config` at start.
    var pipeline: ReplayPipeline
    var now: Double
    var logThreshold: Int
    var transport = "wifi"
    var batteryLevel = 0.93
    var charging = false
    var accessToken: String
    var refreshToken: String
    var device: JSONValue = ["platform": "ios", "os": "17.5.1", "model": "iPhone14,5", "sdk": "4.2.1"]

    /// The scripted server: called for every location upload.
    var server: (DeviceSimulation, [Pending]) -> HTTPReply = { _, _ in HTTPReply(status: 200, response: "{\"ok\":true}") }
    /// The scripted refresh endpoint.
    var refreshServer: (DeviceSimulation) -> HTTPReply = { _ in HTTPReply(status: 200, response: "") }
    /// Called after a successful refresh with the new pair (the script may rotate tokens).
    var rotate: (DeviceSimulation) -> Void = { _ in }

    var pending: [Pending] = []
    var head = 0
    var failures = 0
    var nextAttemptAt: Double?
    var attemptsByUUID: [String: Int] = [:]
    var deleteStatement: Statement?
    var lastLogRowId: Int64 = 0
    var logRowsSinceUpload = 0
    var lastUploadedLogRowId: Int64 = 0

    // Counters for the summary.
    var fixes = 0
    var acceptedFixes = 0
    var rejectedFixes = 0
    var geofences = 0
    var uploaded = 0
    var logRows = 0
    var droppedUUIDs: [String] = []
    var requests = 0
    var pruned = 0
    /// Stops generation once this many fixes were accepted (queued as location records; nil = no limit).
    var fixLimit: Int?
    var isFull: Bool { fixLimit.map { acceptedFixes >= $0 } ?? false }
    /// Called with the fix time before each raw fix is processed (scripts flip connectivity, plant rows…).
    var beforeFix: ((Double) -> Void)?
    /// Called with the uuid of each accepted fix.
    var onAccepted: ((String) -> Void)?
    /// Seconds between fixes while driving.
    var fixInterval = 10.0
    /// Row id of the newest queue row written.
    var lastRecordRowId: Int64 = 0
    /// Row id of the newest log row written.
    var lastLogId: Int64 { lastLogRowId }

    init(writer: DumpWriter, seed: UInt64, start: Double, config: JSONObject) {
        self.writer = writer
        rng = SplitMix64(seed: seed)
        self.config = config
        pipeline = ReplayPipeline(config: FilterConfig(config: SDKConfig(config)))
        now = start
        logThreshold = DeviceSimulation.level(named: config["logLevel"]?.stringValue)
        let auth = config["authorization"]?.objectValue
        accessToken = auth?["accessToken"]?.stringValue ?? ""
        refreshToken = auth?["refreshToken"]?.stringValue ?? ""
    }

    static func level(named name: String?) -> Int {
        switch name?.lowercased() {
        case "off": return 0
        case "error": return 1
        case "warning", "warn": return 2
        case "info": return 3
        case "debug": return 4
        default: return 5
        }
    }

    var pendingCount: Int { pending.count - head }
    var pendingRecords: ArraySlice<Pending> { pending[head...] }
    var hasAuthorization: Bool { config["authorization"]?.objectValue != nil }
    var url: String? { config["url"]?.stringValue }

    // MARK: clock and log

    /// Moves the clock forward to `t`, firing the engine's backoff retry timer on the way: a
    /// failed upload is retried when its backoff expires, not only at the next insert.
    func advance(to t: Double) {
        while let next = nextAttemptAt, next <= t, pendingCount > 0, retryTimerEnabled, url != nil {
            if next > now { now = next + Double(rng.int(1...40)) / 1000 }
            drain()
        }
        if t > now { now = t }
    }

    /// False while the process is dead (nothing runs, not even timers).
    var retryTimerEnabled = true
    func tick(_ milliseconds: Int) { now += Double(milliseconds) / 1000 }
    /// `now` as ISO-8601, memoised: a fix's timestamp, created_at and log ts are usually the same instant.
    var nowText: String { text(for: now) }
    var formatted: (seconds: Double, text: String) = (.nan, "")

    func text(for seconds: Double) -> String {
        if seconds != formatted.seconds { formatted = (seconds, Timestamp.format(seconds)) }
        return formatted.text
    }

    /// Writes one log row when the configured logLevel lets it through.
    func log(_ event: String, level: Int, message: String? = nil, data: JSONValue? = nil, src: String = "native") {
        guard level <= logThreshold || src == "js" else { return }
        log(event, level: level, message: message, dataText: data?.jsonText, src: src)
    }

    /// True when the configured logLevel writes rows of `level`.
    func level(_ level: Int) -> Bool { level <= logThreshold }

    /// Writes a log row whose data is already JSON text.
    func log(_ event: String, level: Int, message: String? = nil, dataText: String?, src: String = "native") {
        guard level <= logThreshold || src == "js" else { return }
        do {
            lastLogRowId = try writer.insertLog(ts: nowText, level: level, src: src, event: event, message: message, data: dataText)
        } catch {
            pendingError = pendingError ?? error
        }
        logRows += 1
        logRowsSinceUpload += 1
    }

    /// The first SQLite error met while simulating (rethrown by `finish`).
    var pendingError: Error?

    func app(_ message: String, data: JSONValue? = nil, level: Int = 3) {
        log("app", level: level, message: message, data: data, src: "js")
    }

    // MARK: lifecycle events

    func sessionStart(reason: String, relaunch: Bool = false) {
        log(relaunch ? "session.relaunch" : "session.start", level: 3, data: ["reason": .string(reason)])
        tick(12)
        log("config", level: 3, data: .object(config))
        tick(30)
    }

    func connectivity(_ newTransport: String) {
        transport = newTransport
        log("connectivity", level: 3, data: ["connected": .bool(newTransport != "none"), "transport": .string(newTransport)])
        tick(5)
        // Level-triggered drain: a usable network re-checks the queue.
        if newTransport != "none", pendingCount > 0 { autoSync(force: false) }
    }

    func motionChange(moving: Bool, confidence: Int) {
        log("motionchange", level: 3, message: moving ? "MOVING" : "STATIONARY", data: ["confidence": .int(Int64(confidence))])
        tick(4)
        if !moving {
            log("motion.stationary", level: 3)
            tick(3)
        }
    }

    func heartbeat() {
        log("heartbeat", level: 4)
        tick(3)
    }

    /// The app's log upload to logUrl: marks the rows sent so far as uploaded.
    func logUpload() {
        guard config["logUrl"]?.stringValue != nil else { return }
        let count = logRowsSinceUpload
        let carried = lastLogRowId
        tick(rng.int(150...600))
        logRowsSinceUpload = 0
        log("log.upload", level: 4, data: ["count": .int(Int64(count)), "status": 200])
        lastUploadedLogRowId = carried
        tick(5)
    }

    // MARK: fixes and records

    func nextBattery() -> (level: Double, charging: Bool) {
        batteryLevel = min(1, max(0.05, batteryLevel + (charging ? 0.0004 : -0.00015)))
        return (GeoMath.round(batteryLevel, 2), charging)
    }

    /// `extras` as JSON text, cached: it changes only when a script sets it.
    var extras: JSONObject = [:] { didSet { extrasText = JSONValue.object(extras).jsonText } }
    var extrasText = "{}"

    func batteryValue() -> JSONValue {
        let b = nextBattery()
        return ["level": .double(b.level), "is_charging": .bool(b.charging)]
    }

    /// Runs a raw fix through the engine; accepted fixes are queued and logged.
    @discardableResult
    func addFix(_ raw: ProviderReading, extraFields: JSONObject = [:]) -> String? {
        guard !isFull else { return nil }
        fixes += 1
        beforeFix?(raw.t)
        advance(to: raw.t)
        let lat = GeoMath.round(raw.latitude, 7), lon = GeoMath.round(raw.longitude, 7)
        let acc = GeoMath.round(raw.accuracy, 1)
        let ts = text(for: raw.t)
        let fix = Fix(time: Timestamp.parse(ts) ?? raw.t, latitude: lat, longitude: lon, accuracy: acc)
        // The teleport reference before this fix: Adjust's moved position (logged as adjusted_*) is
        // what the check returns for it, and the pipeline keeps only the smoothed output.
        let teleportBefore = pipeline.teleport
        let out = pipeline.process(fix)
        switch out.decision {
        case .rejected:
            rejectedFixes += 1
            let reason = out.reason ?? .accuracy
            let filter = pipeline.config
            var data: JSONObject = ["reason": .string(reason.rawValue), "timestamp": .string(ts), "latitude": .double(lat),
                                    "longitude": .double(lon), "accuracy": .double(acc)]
            data["implied_speed"] = out.impliedSpeed.map { .double(GeoMath.round($0, 1)) } ?? .null
            data["limit"] = .double(reason == .accuracy ? filter.locationFilterMaxAccuracy : filter.locationFilterMaxSpeed)
            log("filter.reject", level: 4, data: .object(data))
            tick(2)
            return nil
        case .adjusted:
            let moved = teleportBefore.evaluate(time: fix.time, latitude: lat, longitude: lon)
            log("filter.adjust", level: 4, data: [
                "timestamp": .string(ts), "latitude": .double(lat), "longitude": .double(lon),
                "adjusted_latitude": .double(GeoMath.round(moved.latitude, 7)),
                "adjusted_longitude": .double(GeoMath.round(moved.longitude, 7)),
                "implied_speed": .double(GeoMath.round(out.impliedSpeed ?? 0, 1)),
                "limit": .double(pipeline.config.locationFilterMaxSpeed)])
            tick(2)
        case .accepted:
            break
        }
        acceptedFixes += 1
        let uuid = rng.uuid()
        let outLat = GeoMath.round(out.latitude, 7), outLon = GeoMath.round(out.longitude, 7)
        let odometer = GeoMath.round(out.odometer, 1)
        let speed = raw.speed < 0 ? -1 : GeoMath.round(raw.speed, 2)
        let heading = raw.heading < 0 ? -1 : GeoMath.round(raw.heading, 1)
        let altitude = GeoMath.round(raw.altitude, 1)
        // The record, in the SDK's wire order (written directly: this runs once per fix).
        var json = JSONTextBuilder()
        json.open()
        json.key("uuid"); json.string(uuid)
        json.key("timestamp"); json.string(ts)
        json.key("odometer"); json.double(odometer)
        json.key("coords"); json.open()
        json.key("latitude"); json.double(outLat)
        json.key("longitude"); json.double(outLon)
        json.key("accuracy"); json.double(acc)
        json.key("altitude"); json.double(altitude)
        json.key("altitude_accuracy"); json.double(GeoMath.round(rng.double(2...9), 1))
        json.key("speed"); json.double(speed)
        json.key("speed_accuracy"); json.double(speed < 0 ? -1 : GeoMath.round(rng.double(0.3...1.8), 1))
        json.key("heading"); json.double(heading)
        json.key("heading_accuracy"); json.double(heading < 0 ? -1 : GeoMath.round(rng.double(2...15), 1))
        json.close()
        json.key("activity"); json.open()
        json.key("type"); json.string(raw.activity)
        json.key("confidence"); json.int(raw.confidence)
        json.close()
        let battery = nextBattery()
        json.key("battery"); json.open()
        json.key("level"); json.double(battery.level)
        json.key("is_charging"); json.bool(battery.charging)
        json.close()
        json.key("is_moving"); json.bool(raw.isMoving)
        json.key("extras"); json.raw(extrasText)
        if let event = raw.event { json.key("event"); json.string(event) }
        json.close()
        enqueue(uuid: uuid, timestamp: ts, kind: .location, json: json.text)
        if level(4) {
            var line = JSONTextBuilder(capacity: 320)
            line.open()
            line.key("uuid"); line.string(uuid)
            line.key("timestamp"); line.string(ts)
            line.key("latitude"); line.double(outLat)
            line.key("longitude"); line.double(outLon)
            line.key("accuracy"); line.double(acc)
            line.key("speed"); line.double(speed)
            line.key("heading"); line.double(heading)
            line.key("altitude"); line.double(altitude)
            line.key("odometer"); line.double(odometer)
            line.key("is_moving"); line.bool(raw.isMoving)
            line.key("raw_latitude"); line.double(lat)
            line.key("raw_longitude"); line.double(lon)
            line.close()
            log("location", level: 4, dataText: line.text)
        }
        tick(2)
        onAccepted?(uuid)
        afterInsert(uuid)
        return uuid
    }

    /// Queues a geofence transition record (an event, not a fix).
    @discardableResult
    func addGeofence(identifier: String, action: String, latitude: Double, longitude: Double, at t: Double) -> String {
        advance(to: t)
        geofences += 1
        let uuid = rng.uuid()
        let ts = Timestamp.format(t)
        let record: JSONObject = [
            "uuid": .string(uuid), "timestamp": .string(ts), "odometer": .double(GeoMath.round(pipeline.odometerTotal, 1)),
            "coords": ["latitude": .double(GeoMath.round(latitude, 7)), "longitude": .double(GeoMath.round(longitude, 7)),
                       "accuracy": .double(GeoMath.round(rng.double(5...25), 1)), "altitude": .double(GeoMath.round(rng.double(100...120), 1)),
                       "altitude_accuracy": 6.0, "speed": -1.0, "speed_accuracy": -1.0, "heading": -1.0, "heading_accuracy": -1.0],
            "activity": ["type": "still", "confidence": 80], "battery": batteryValue(), "is_moving": .bool(action == "EXIT"),
            "extras": .object(extras), "event": "geofence",
            "geofence": ["identifier": .string(identifier), "action": .string(action)],
        ]
        enqueue(uuid: uuid, timestamp: ts, kind: .geofence, json: JSONValue.object(record).jsonText)
        afterInsert(uuid)
        return uuid
    }

    private func enqueue(uuid: String, timestamp: String, kind: RecordKind, json: String) {
        do {
            let rowId = try writer.insertRecord(uuid: uuid, timestamp: timestamp, kind: kind, json: json, createdAt: nowText)
            pending.append(Pending(rowId: rowId, uuid: uuid, bytes: json.utf8.count))
            lastRecordRowId = rowId
        } catch {
            pendingError = pendingError ?? error
        }
    }

    private func afterInsert(_ uuid: String) {
        if level(5) { log("queue.insert", level: 5, data: ["uuid": .string(uuid), "count": .int(Int64(pendingCount))]) }
        tick(1)
        // maxRecordsToPersist evicts the oldest records once the queue is over the limit.
        let limit = config["maxRecordsToPersist"]?.intValue ?? -1
        if limit > 0, pendingCount > limit {
            let excess = pendingCount - limit
            remove(excess)
            pruned += excess
            log("queue.prune", level: 3, data: ["reason": "maxRecords", "count": .int(Int64(excess))])
            tick(1)
        }
        autoSync(force: false)
    }

    // MARK: end of dump

    /// Writes the engine state at dump time and marks the log rows a log upload carried.
    func finish(schemaState: Bool = true) throws {
        if let pendingError { throw pendingError }
        if lastUploadedLogRowId > 0 {
            try writer.database.execute("UPDATE log_entries SET uploaded = 1 WHERE id <= \(lastUploadedLogRowId)")
        }
        guard schemaState else { return }
        try writer.setState("config", .object(config))
        try writer.setState("odometer", .double(GeoMath.round(pipeline.odometerTotal, 1)))
        try writer.setState("auth", ["accessToken": .string(accessToken), "refreshToken": .string(refreshToken)])
        try writer.setState("http.failures", .int(Int64(failures)))
        try writer.setState("http.next_attempt_at", nextAttemptAt.map { .string(Timestamp.format($0)) } ?? .null)
        try writer.setState("device", device)
    }
}
