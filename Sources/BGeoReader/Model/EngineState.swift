/// The `state` table: the engine's state at the moment of the dump. Every key is optional:
/// legacy dumps have no state at all. Values are kept as JSON; unknown keys are kept too.
public struct EngineState: Sendable {
    public var schemaVersion: Int?
    /// The active Config (holds live secrets: redact before showing).
    public var config: JSONObject?
    public var odometer: Double?
    /// `{"accessToken", "refreshToken"}`, possibly rotated since the config was set.
    public var auth: JSONObject?
    public var httpFailures: Int?
    public var nextAttemptAt: String?
    public var device: JSONObject?
    /// Present when `sanitize` wrote this dump (`state.sanitized`).
    public var sanitized: SanitizationMarker?
    /// Every key as stored, parsed (a value that is not JSON is kept as a string).
    public var entries: [(key: String, value: JSONValue)]

    public init(schemaVersion: Int? = nil, config: JSONObject? = nil, odometer: Double? = nil, auth: JSONObject? = nil,
                httpFailures: Int? = nil, nextAttemptAt: String? = nil, device: JSONObject? = nil,
                entries: [(key: String, value: JSONValue)] = []) {
        self.schemaVersion = schemaVersion
        self.config = config
        self.odometer = odometer
        self.auth = auth
        self.httpFailures = httpFailures
        self.nextAttemptAt = nextAttemptAt
        self.device = device
        self.entries = entries
    }
}

/// Where the effective config came from.
public enum ConfigSource: Sendable, Equatable, CustomStringConvertible {
    /// `state.config`.
    case state
    /// The last `config` log line (its row id).
    case logLine(rowId: Int64)
    /// Neither exists: engine defaults.
    case defaults

    public var description: String {
        switch self {
        case .state: return "state.config"
        case .logLine(let id): return "the last config log line (log_entries row \(id))"
        case .defaults: return "engine defaults (the dump records no config)"
        }
    }
}

/// A config as the SDK sees it: a JSON object with case-insensitive key lookup and typed reads.
public struct SDKConfig: Sendable, Equatable {
    public var object: JSONObject

    public init(_ object: JSONObject = JSONObject()) { self.object = object }

    public subscript(key: String) -> JSONValue? { object.valueIgnoringCase(key) }

    public func string(_ key: String) -> String? { self[key]?.stringValue }
    public func double(_ key: String) -> Double? { self[key]?.doubleValue }
    public func int(_ key: String) -> Int? { self[key]?.intValue }

    /// Booleans, tolerating `"true"`/`"false"` strings and 0/1 as old apps sent them.
    public func bool(_ key: String) -> Bool? {
        switch self[key] {
        case .bool(let b)?: return b
        case .int(let i)?: return i != 0
        case .string(let s)?: return ["true", "1", "yes"].contains(s.lowercased()) ? true
            : (["false", "0", "no"].contains(s.lowercased()) ? false : nil)
        default: return nil
        }
    }

    /// Sets a dotted path (`authorization.refreshUrl`), creating objects on the way.
    public mutating func set(path: String, to value: JSONValue) {
        let parts = path.split(separator: ".").map(String.init)
        guard !parts.isEmpty else { return }
        object = SDKConfig.setting(object, parts[...], value)
    }

    private static func setting(_ object: JSONObject, _ parts: ArraySlice<String>, _ value: JSONValue) -> JSONObject {
        var copy = object
        let head = parts.first!
        // Reuse the existing key's spelling so `--set locationfiltermaxspeed=…` overrides `locationFilterMaxSpeed`.
        let key = object.keys.first { $0.lowercased() == head.lowercased() } ?? head
        if parts.count == 1 {
            copy[key] = value
        } else {
            let child = object[key]?.objectValue ?? JSONObject()
            copy[key] = .object(setting(child, parts.dropFirst(), value))
        }
        return copy
    }

    /// Merges another object over this one, key by key (nested objects replaced whole).
    public mutating func merge(_ other: JSONObject) {
        for member in other { set(path: member.key, to: member.value) }
    }

    /// Parses a `KEY=VALUE` override: VALUE as JSON when it parses (numbers, booleans, objects),
    /// else as a plain string.
    public static func parseOverride(_ text: String) -> (key: String, value: JSONValue)? {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { return nil }
        let key = String(text[..<eq]).trimmingCharacters(in: .whitespaces)
        let raw = String(text[text.index(after: eq)...])
        let value = (try? JSONParser.parse(raw)) ?? .string(raw)
        return (key, value)
    }
}
