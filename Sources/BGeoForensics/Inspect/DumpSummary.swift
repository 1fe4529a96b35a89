/// The first thing a support engineer reads about a dump: what it is, what is queued, what the
/// log holds, the engine state (secrets redacted) and every warning. Built in one pass over
/// each table.
import BGeoReader
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
    /// The dump's warnings once the summary was read (listed from disk when there are many).
    public var warnings: WarningList
    /// Set when `sanitize` wrote this dump.
    public var sanitized: SanitizationMarker?

    /// The newest time anywhere in the dump: "now" from the device's point of view.
    public var newestTime: Double? {
        [queue.newestTime, log.lastTime].compactMap { $0 }.max()
    }

    /// The redactor the state was redacted with, and the one the summary's text must pass
    /// through: the one given, or the dump's, learned as the log was counted.
    public let redactor: Redactor

    /// A summary redacted by `redactor`.
    public init(dump: Dump, redactor: Redactor) throws(WorkFileError) {
        try self.init(dump: dump, given: redactor)
    }

    /// A summary redacted by the dump's own redactor, whose log secrets are learned as the log is
    /// counted (`LogSecrets`: every row is read there anyway, and the redactor is needed only
    /// for the state, after it), not by a scan of their own; `enabled` false: nothing is redacted.
    public init(dump: Dump, redacting enabled: Bool) throws(WorkFileError) {
        try self.init(dump: dump, given: enabled ? nil : Redactor(enabled: false))
    }

    private init(dump: Dump, given: Redactor?) throws(WorkFileError) {
        path = dump.path
        layout = dump.layout
        let mark = dump.warnings.count
        let learning = given == nil
        // The queue and the log are independent tables: scan them on two threads, each through its
        // own connection to the private copy. Log warnings are appended after the queue's, so the
        // order is the same as a sequential scan's.
        let logScan = ScanRunner.beside(dump) { DumpSummary.scanLog($0, learningSecrets: learning) }
        queue = DumpSummary.scanQueue(dump)
        let logRead = logScan.value()
        log = logRead.stats
        if let given {
            redactor = given
        } else {
            var learned = dump.stateRedactor(enabled: true)
            if let secrets = logRead.secrets { learned.learn(from: secrets.learned) }
            redactor = learned
            dump.placeSecretRowWarnings(since: mark)
        }
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
        warnings = try dump.warnings.list()
    }

    static func scanQueue(_ dump: Dump) -> QueueStats {
        var q = QueueStats()
        // Counted while the queue's later half is read (a count walks the whole index).
        let tally = QueueTally.read(dump) { dump.queueRowCount() }
        // Every row is a pending record, the unreadable ones too: the count the parts add up to.
        q.count = max(tally.count, tally.rowCount ?? tally.count)
        q.locations = tally.locations
        q.geofences = tally.geofences
        q.oldestTime = tally.oldestTime
        q.newestTime = tally.newestTime
        if tally.oldestTime != nil { q.oldest = String(decoding: tally.oldest, as: UTF8.self) }
        if tally.newestTime != nil { q.newest = String(decoding: tally.newest, as: UTF8.self) }
        q.headUUID = tally.head
        q.unreadable = q.count - tally.count
        return q
    }

    static func scanLog(_ dump: Dump, learningSecrets: Bool) -> (stats: LogStats, secrets: LogSecrets?) {
        let tally = LogTally.read(dump, learningSecrets: learningSecrets)
        var l = LogStats()
        l.count = tally.count
        l.byLevel = tally.byLevel
        l.pendingUpload = tally.pendingUpload
        l.firstTime = tally.first?.time
        l.lastTime = tally.last?.time
        // The first/last timestamps as written, read back by id (the counting scan skipped text).
        l.first = tally.first.flatMap { DumpSummary.logTimestampText(dump, rowId: $0.row) }
        l.last = tally.last.flatMap { DumpSummary.logTimestampText(dump, rowId: $0.row) }
        return (l, tally.secrets)
    }

    static func logTimestampText(_ dump: Dump, rowId: Int64) -> String? { dump.logTimestampText(rowId: rowId) }

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

    /// The `inspect --json` document, its warnings listed in the tree: for tests (a tape that
    /// cannot be read ends the list early; `writeJSON` streams them and says so).
    package var json: JSONValue {
        var listed: [JSONValue] = []
        try? warnings.forEach { listed.append($0.json) }
        return jsonTree(warnings: .array(listed))
    }

    /// Writes the `inspect --json` document, its warnings streamed as they are read.
    public func writeJSON(to output: TextOutput) throws {
        try StreamedJSONDocument.write(jsonTree(warnings: StreamedJSONDocument.placeholder(0)),
                                       arrays: [warnings.streamedArray(redactor)], to: output)
    }

    private func jsonTree(warnings listed: JSONValue) -> JSONValue {
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
        root["warnings"] = listed
        return .object(root)
    }
}

/// The queue's counts and edges, read in one pass — or in two halves on two connections, merged
/// exactly as one pass would have found them.
struct QueueTally {
    var count = 0
    var locations = 0
    var geofences = 0
    var oldestTime: Double?
    var newestTime: Double?
    /// The oldest and newest timestamps as written (UTF-8). Their bytes are copied as they change
    /// (a sorted queue changes the newest on every row); a String is built once, at the end.
    var oldest: [UInt8] = []
    var newest: [UInt8] = []
    var head: String?
    /// Rows read, decodable or not.
    var rowsRead = 0
    /// 2 when the queue was read in two halves at once, else 1.
    var passes = 1
    /// The table's row count as SQLite gives it (`countRows`), nil when it could not be counted.
    var rowCount: Int?

    /// Reads `dump`'s queue. When the queue is large its two halves are read at once, kept by
    /// `ScanRunner`'s **two parts** rule when together they read all `rowCount` rows; otherwise
    /// the queue is read again in one pass on `dump` itself. Below `minimumSplitRows` row ids
    /// the queue is read in one pass (a second thread costs more).
    static func read(_ dump: Dump, rowCount: Int?, minimumSplitRows: Int64 = 50_000) -> QueueTally {
        read(dump, minimumSplitRows: minimumSplitRows) { rowCount }
    }

    /// `read`, with the row count taken by `countRows` on `dump`'s connection while the later
    /// half is being read (called exactly once).
    static func read(_ dump: Dump, minimumSplitRows: Int64 = 50_000, countRows: () -> Int?) -> QueueTally {
        guard let halves = dump.queueHalves(minimumRows: minimumSplitRows) else {
            return QueueTally(dump, rows: nil, rowCount: countRows())
        }
        var rowCount: Int?
        var counted = false
        let parts = ScanRunner.inTwoParts(dump, first: { reader in
            rowCount = countRows()
            counted = true
            return QueueTally(reader, rows: halves.first, rowCount: rowCount)
        }, later: { QueueTally($0, rows: halves.second) }, whole: { first, later in
            rowCount.map { first.rowsRead + later.rowsRead == $0 } ?? false
        })
        guard var tally = parts?.first, let rest = parts?.later else {
            return QueueTally(dump, rows: nil, rowCount: counted ? rowCount : countRows())
        }
        tally.append(rest)
        tally.passes = 2
        return tally
    }

    /// One pass over the queue rows with ids in `rows` (all when nil).
    init(_ dump: Dump, rows: Range<Int64>?, rowCount: Int? = nil) {
        self.rowCount = rowCount
        rowsRead = dump.forEachDecodedRecord(rows: rows) { record in
            count += 1
            if record.kind == .geofence { geofences += 1 } else { locations += 1 }
            if oldestTime.map({ record.time < $0 }) ?? true { oldestTime = record.time; record.copyTimestampText(into: &oldest) }
            if newestTime.map({ record.time > $0 }) ?? true { newestTime = record.time; record.copyTimestampText(into: &newest) }
            if head == nil { head = record.uuid }
        }
    }

    /// Adds the tally of the rows that follow this one's, as one pass would have continued.
    mutating func append(_ later: QueueTally) {
        count += later.count
        locations += later.locations
        geofences += later.geofences
        rowsRead += later.rowsRead
        if let time = later.oldestTime, oldestTime.map({ time < $0 }) ?? true { oldestTime = time; oldest = later.oldest }
        if let time = later.newestTime, newestTime.map({ time > $0 }) ?? true { newestTime = time; newest = later.newest }
        if head == nil { head = later.head }
    }
}
