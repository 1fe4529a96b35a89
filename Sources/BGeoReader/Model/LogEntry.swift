/// Log levels as the SDK numbers them.
public enum LogLevel: Int, Sendable, CaseIterable, Comparable {
    case error = 1, warn = 2, info = 3, debug = 4, verbose = 5

    /// The name the SDK uploads ("error" | "warn" | "info" | "debug" | "verbose").
    public var name: String {
        switch self {
        case .error: return "error"
        case .warn: return "warn"
        case .info: return "info"
        case .debug: return "debug"
        case .verbose: return "verbose"
        }
    }

    /// Accepts a name (`warn`, `warning`, `ERROR`) or a number 1–5.
    public init?(text: String) {
        let lowered = text.lowercased()
        if let n = Int(lowered), let level = LogLevel(rawValue: n) { self = level; return }
        switch lowered {
        case "error", "err": self = .error
        case "warn", "warning": self = .warn
        case "info": self = .info
        case "debug": self = .debug
        case "verbose", "trace": self = .verbose
        default: return nil
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Name for any stored number, including ones outside 1–5.
    public static func name(of raw: Int) -> String { LogLevel(rawValue: raw)?.name ?? "level\(raw)" }
}

/// One row of `log_entries`. `data` stays text until asked for: most scans never need it.
public struct LogEntry: Sendable {
    public var rowId: Int64
    public var tsText: String
    /// Seconds since the epoch (UTC).
    public var time: Double
    /// Stored level number (1 error … 5 verbose).
    public var level: Int
    public var src: String
    public var event: String
    public var message: String?
    /// The `data` column as stored (a JSON object, or nil).
    public var dataText: String?
    public var uploaded: Bool

    public init(rowId: Int64, tsText: String, time: Double, level: Int, src: String, event: String,
                message: String? = nil, dataText: String? = nil, uploaded: Bool = false) {
        self.rowId = rowId
        self.tsText = tsText
        self.time = time
        self.level = level
        self.src = src
        self.event = event
        self.message = message
        self.dataText = dataText
        self.uploaded = uploaded
    }

    /// `data` parsed; nil when absent or not JSON (the reader has already warned about the latter).
    public var data: JSONValue? {
        guard let dataText else { return nil }
        return try? JSONParser.parse(dataText)
    }

    public var levelName: String { LogLevel.name(of: level) }
}

/// Which log rows to read.
public struct LogQuery: Sendable {
    public enum Order: Sendable { case oldestFirst, newestFirst }

    public var order: Order
    public var limit: Int?
    /// This level and more severe (warn → warn and error).
    public var maxLevel: LogLevel?
    /// Exact event names, or prefixes written `http.*`.
    public var events: [String]
    public var src: String?
    public var since: Double?
    public var until: Double?
    /// Case-insensitive substring of message or data.
    public var grep: String?
    /// Only rows whose data states one of these HTTP statuses (`status`: http.response,
    /// auth.refresh.result, queue.drop, log.upload); empty: no filter.
    public var statuses: Set<Int> = []
    /// Whether `tsText`, `src`, `message` and `dataText` are filled in. Counting scans (inspect)
    /// skip them: building those strings is most of a million-row scan's cost.
    public var includeText = true
    /// Whether the reader checks each row's `data` is JSON (and warns). Readers that parse `data`
    /// themselves, and warn on failure with their own located message, turn it off to avoid
    /// parsing every row twice.
    public var validatesData = true
    /// Exact event names matched besides `events` only where the row's `data` holds an `@`:
    /// the secrets' learning reads the SDK's records of the URLs it called this way
    /// (`Dump.urlSecretEvents`), and SQLite skips the rest of them (one per upload attempt).
    package var eventsHoldingAt: [String] = []

    public init(order: Order = .oldestFirst, limit: Int? = nil, maxLevel: LogLevel? = nil, events: [String] = [],
                src: String? = nil, since: Double? = nil, until: Double? = nil, grep: String? = nil) {
        self.order = order
        self.limit = limit
        self.maxLevel = maxLevel
        self.events = events
        self.src = src
        self.since = since
        self.until = until
        self.grep = grep
    }

    /// `events` read once for a scan's check of every row: the exact names apart from the
    /// prefixes of `x.*` patterns (telling them apart per row cost a string search per pattern).
    /// A row's event matches a name exactly or starts with a pattern's prefix; any, without events.
    struct EventMatch {
        private let exact: [String]
        private let prefixes: [String]
        private let any: Bool

        init(_ events: [String]) {
            any = events.isEmpty
            exact = events.filter { !$0.hasSuffix("*") }
            prefixes = events.filter { $0.hasSuffix("*") }.map { String($0.dropLast()) }
        }

        func matches(_ event: String) -> Bool {
            any || exact.contains(event) || prefixes.contains { event.hasPrefix($0) }
        }
    }

    /// Whether `data` (a row's cell, nil when NULL) holds an `@`: the test `eventsHoldingAt`
    /// puts on its rows. The scan's SQL asks it first (`bgeo_holds_at`, `CSQLite/shim.h`: a byte
    /// search, where `LIKE` costs more per row and a build may leave it false on every BLOB, as
    /// Debian's does); the scan asks it again of each row SQLite hands over.
    static func holdsAt(_ data: UnsafeBufferPointer<UInt8>?) -> Bool {
        ByteSearch.contains(UInt8(ascii: "@"), in: data)
    }
}
