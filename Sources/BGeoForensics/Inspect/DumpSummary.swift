/// The first thing a support engineer reads about a dump: what it is, what is queued, what the
/// log holds, the engine state (secrets redacted) and every warning. Built in one pass over
/// each table.
import Foundation

public struct DumpSummary: Sendable {
    public struct QueueStats: Sendable {
        public var count = 0
        public var locations = 0
        public var geofences = 0
        /// Rows present but undecodable (each has a warning).
        public var unreadable = 0
        public var oldest: String?
        public var newest: String?
        public var oldestTime: Double?
        public var newestTime: Double?
        public var headUUID: String?
    }

    public struct LogStats: Sendable {
        public var count = 0
        public var byLevel: [Int: Int] = [:]
        public var first: String?
        public var last: String?
        public var firstTime: Double?
        public var lastTime: Double?
        public var pendingUpload = 0
    }

    public var path: String
    public var inputs: [DumpInput]
    public var layout: DumpLayout
    public var queue: QueueStats
    public var log: LogStats
    /// State as JSON, redacted: config, auth fingerprints, failures, next attempt, device, odometer.
    public var state: JSONValue
    public var configSource: ConfigSource
    public var warnings: [DumpWarning]
    /// Set when `sanitize` wrote this dump.
    public var sanitized: SanitizationMarker?

    /// The newest time anywhere in the dump: "now" from the device's point of view.
    public var newestTime: Double? {
        [queue.newestTime, log.lastTime].compactMap { $0 }.max()
    }

    public init(dump: Dump, redactor: Redactor) {
        path = dump.path
        layout = dump.layout
        // The queue and the log are independent tables: scan them on two threads, each through its
        // own connection to the private copy. Log warnings are appended after the queue's, so the
        // order is the same as a sequential scan's.
        let logScan = SecondConnectionScan.start(on: dump) { DumpSummary.scanLog($0) }
        queue = DumpSummary.scanQueue(dump)
        log = logScan?.finish(into: dump.warnings) ?? DumpSummary.scanLog(dump)
        let q = queue
        let l = log
        let recorded = dump.recordedConfig()
        configSource = recorded.source
        let engine = dump.engineState()
        sanitized = engine.sanitized
        let reference = [q.newestTime, l.lastTime].compactMap { $0 }.max()
        state = DumpSummary.stateJSON(engine, config: recorded.config, source: recorded.source,
                                      redactor: redactor, reference: reference)
        // Last: the hashes are computed beside the scans.
        inputs = dump.inputs
        warnings = dump.warnings.all
    }

    static func scanQueue(_ dump: Dump) -> QueueStats {
        var q = QueueStats()
        if let table = dump.layout.queueTable, let stmt = try? dump.database.prepare("SELECT count(*) FROM \(quoteIdentifier(table))"),
           (try? stmt.step()) == true {
            q.unreadable = stmt.int(0)
        }
        dump.forEachRecord(.fieldsOnly) { record in
            q.count += 1
            if record.kind == .geofence { q.geofences += 1 } else { q.locations += 1 }
            if q.oldestTime.map({ record.time < $0 }) ?? true { q.oldestTime = record.time; q.oldest = record.timestampText }
            if q.newestTime.map({ record.time > $0 }) ?? true { q.newestTime = record.time; q.newest = record.timestampText }
            if q.headUUID == nil { q.headUUID = record.uuid }
        }
        q.unreadable = max(0, q.unreadable - q.count)
        return q
    }

    static func scanLog(_ dump: Dump) -> LogStats {
        var l = LogStats()
        var firstRow: Int64?
        var lastRow: Int64?
        var counting = LogQuery()
        counting.includeText = false
        dump.forEachLogEntry(counting) { entry in
            l.count += 1
            l.byLevel[entry.level, default: 0] += 1
            if !entry.uploaded { l.pendingUpload += 1 }
            if l.firstTime.map({ entry.time < $0 }) ?? true { l.firstTime = entry.time; firstRow = entry.rowId }
            if l.lastTime.map({ entry.time > $0 }) ?? true { l.lastTime = entry.time; lastRow = entry.rowId }
        }
        // The first/last timestamps as written, read back by id (the counting scan skipped text).
        l.first = firstRow.flatMap { DumpSummary.logTimestampText(dump, rowId: $0) }
        l.last = lastRow.flatMap { DumpSummary.logTimestampText(dump, rowId: $0) }
        return l
    }

    static func logTimestampText(_ dump: Dump, rowId: Int64) -> String? {
        guard let stmt = try? dump.database.prepare("SELECT ts FROM log_entries WHERE id = ?"),
              (try? stmt.bind([.integer(rowId)])) != nil, (try? stmt.step()) == true else { return nil }
        return stmt.text(0)
    }

    static func stateJSON(_ engine: EngineState, config: SDKConfig, source: ConfigSource, redactor: Redactor,
                          reference: Double?) -> JSONValue {
        var object = JSONObject()
        object["schemaVersion"] = .from(engine.schemaVersion)
        object["configSource"] = .string(source.description)
        object["config"] = source == .defaults ? .null : redactor.redact(.object(config.object))
        var auth = JSONObject()
        let configAuth = config["authorization"]?.objectValue
        let access = engine.auth?.valueIgnoringCase("accessToken")?.stringValue
            ?? configAuth?.valueIgnoringCase("accessToken")?.stringValue
        let refresh = engine.auth?.valueIgnoringCase("refreshToken")?.stringValue
            ?? configAuth?.valueIgnoringCase("refreshToken")?.stringValue
        // A sanitised dump holds fingerprints; its marker keeps what they stood for.
        func facts(_ token: String) -> TokenFingerprint { engine.sanitized?.token(token) ?? TokenFingerprint(token) }
        if let access, !access.isEmpty {
            auth["accessToken"] = redactor.enabled ? facts(access).json(reference: reference) : .string(access)
        }
        if let refresh, !refresh.isEmpty {
            auth["refreshToken"] = redactor.enabled ? facts(refresh).json(reference: reference) : .string(refresh)
        }
        if let access, let exp = JWT.expiry(access) ?? engine.sanitized?.expiry(ofToken: access) {
            auth["accessTokenExpires"] = .string(Timestamp.format(exp, milliseconds: false))
            if let reference { auth["accessTokenExpiredAtDump"] = .bool(exp <= reference) }
        }
        if engine.auth == nil, configAuth == nil { object["auth"] = .null } else {
            auth["source"] = .string(engine.auth != nil ? "state.auth" : "config.authorization")
            object["auth"] = .object(auth)
        }
        object["httpFailures"] = .from(engine.httpFailures)
        object["nextAttemptAt"] = .from(engine.nextAttemptAt)
        object["odometer"] = .from(engine.odometer)
        object["device"] = engine.device.map { redactor.redact(.object($0)) } ?? .null
        let known: Set<String> = ["schema_version", "config", "auth", "http.failures", "http.next_attempt_at", "device", "odometer",
                                  SanitizationMarker.stateKey]
        let others = engine.entries.filter { !known.contains($0.key) }
        if !others.isEmpty {
            object["other"] = redactor.redact(.object(JSONObject(others)))
        }
        return .object(object)
    }

    /// The `inspect --json` document.
    public var json: JSONValue {
        var root = JSONObject()
        root["dump"] = .string(path)
        root["format"] = .string(layout.format.rawValue)
        root["layout"] = .string(layout.displayName)
        root["legacy"] = .bool(layout.isLegacy)
        root["schemaVersion"] = .from(layout.schemaVersion)
        if let sanitized {
            var marker = sanitized.json
            marker["summary"] = .string(sanitized.summary)
            root["sanitized"] = .object(marker)
        }
        root["inputs"] = .array(inputs.map { ["path": .string($0.path), "bytes": .int($0.bytes), "sha256": .string($0.sha256)] })
        root["queue"] = [
            "count": .int(Int64(queue.count)), "locations": .int(Int64(queue.locations)),
            "geofences": .int(Int64(queue.geofences)), "unreadable": .int(Int64(queue.unreadable)),
            "oldest": .from(queue.oldest), "newest": .from(queue.newest), "head": .from(queue.headUUID),
        ]
        var byLevel = JSONObject()
        for raw in log.byLevel.keys.sorted() { byLevel[LogLevel.name(of: raw)] = .int(Int64(log.byLevel[raw]!)) }
        root["log"] = [
            "count": .int(Int64(log.count)), "byLevel": .object(byLevel), "first": .from(log.first),
            "last": .from(log.last), "pendingUpload": .int(Int64(log.pendingUpload)),
        ]
        root["state"] = state
        root["warnings"] = .array(warnings.map(\.json))
        return .object(root)
    }
}
