import BGeoReader
import Foundation

/// The config a replay runs under: the SDK config (recorded, possibly overridden), the filter keys
/// read from it, and where it came from in words.
public struct ReplayConfiguration: Sendable {
    public var sdkConfig: SDKConfig
    /// "state.config", "the last config log line (…)", "engine defaults (…)", plus any overrides.
    public var source: String
    /// Overrides applied, as given (`locationFilterPolicy=Adjust`, `--config what-if.json`).
    public var overrides: [String]

    public init(sdkConfig: SDKConfig = SDKConfig(), source: String = "engine defaults", overrides: [String] = []) {
        self.sdkConfig = sdkConfig
        self.source = source
        self.overrides = overrides
    }

    /// Findings about the recorded config itself (filter keys changing between config log lines).
    public var history: [String] = []

    /// The config the dump recorded (state.config, else the last config log line, else engine defaults).
    /// Config log lines whose filter keys differ from it are noted: the engine applies
    /// locationFilterPolicy and kalmanProfile only when tracking restarts, so a trace can span
    /// several filter configs while replay uses one.
    public static func recorded(from dump: Dump) -> ReplayConfiguration {
        var lines = ConfigLines(dump.recordedConfig())
        dump.forEachLogEntry(LogQuery(events: ["config"])) { lines.add($0) }
        return lines.configuration
    }

    /// The recorded config and the `config` log lines compared with it, one at a time: lets the
    /// redactor's scan, which reads those lines anyway, build the configuration
    /// (`SecretsAndConfig`) without reading the log again.
    struct ConfigLines: ConfigLineReader {
        private var result: ReplayConfiguration
        private let effective: FilterConfig
        /// The first three differing lines, quoted; the rest are only counted.
        private var examples: [String] = []
        private var differing = 0
        private var count = 0

        init(_ recorded: (config: SDKConfig, source: ConfigSource)) {
            result = ReplayConfiguration(sdkConfig: recorded.config, source: recorded.source.description)
            effective = FilterConfig(config: recorded.config)
        }

        /// Takes a `config` log line.
        mutating func add(_ entry: LogEntry) {
            guard let object = entry.data?.objectValue else { return }
            count += 1
            let logged = FilterConfig(config: SDKConfig(object))
            guard logged != effective else { return }
            differing += 1
            if examples.count < 3 { examples.append("\(entry.tsText) (\(logged.summary))") }
        }

        var configuration: ReplayConfiguration {
            var configuration = result
            if differing > 0 {
                configuration.history.append("\(differing) of \(count) config log lines set different filter keys, e.g. "
                    + examples.joined(separator: "; ") + "; replay applies one config to the whole trace")
            }
            return configuration
        }
    }

    public var filter: FilterConfig { FilterConfig(config: sdkConfig) }
    public var notes: [String] { history + FilterConfig.notes(for: sdkConfig) }

    /// Where the effective config came from, overrides included.
    public var sourceDescription: String {
        overrides.isEmpty ? source : source + ", overridden by " + overrides.joined(separator: ", ")
    }

    /// Merges a JSON config file's object over this config (`--config FILE.json`). A file holding
    /// `{"config": {...}}` (a saved state value) is unwrapped.
    public mutating func apply(configFile path: String) throws(UsageError) {
        self = try ReplayOverrides(configFile: path, sets: []).applied(to: self)
    }

    /// Applies one `KEY=VALUE` override (SDK key names, case-insensitive).
    public mutating func apply(set text: String) throws(UsageError) {
        self = try ReplayOverrides(configFile: nil, sets: [text]).applied(to: self)
    }

    /// Rejects override values the engine could not use, so a typo never silently becomes a default.
    /// A policy or profile name must be one the engine knows: a what-if with a misspelt name would
    /// only replay the engine's fallback (Conservative / DEFAULT), never what the user meant. (A
    /// misspelt name *recorded in the dump* is still read as the engine reads it, with a note.)
    static func validate(key: String, value: JSONValue, origin: String) throws(UsageError) {
        let probe = SDKConfig(JSONObject([(key: key, value: value)]))
        func name(_ allowed: [String]) throws(UsageError) {
            guard let text = value.stringValue, allowed.contains(where: { $0.lowercased() == text.lowercased() }) else {
                let typed = value.stringValue ?? value.jsonText
                let other = allowed.contains("DEFAULT") ? ("locationFilterPolicy", FilterPolicy.allCases.map(\.rawValue))
                    : ("kalmanProfile", KalmanProfile.allCases.map(\.rawValue))
                let hint = Suggestion.closest(to: typed, among: allowed).map { " (did you mean \($0)?)" }
                    ?? Suggestion.closest(to: typed, among: other.1).map { " (\($0) is a \(other.0) value)" } ?? ""
                throw UsageError(message: "\(origin): \(key) takes \(allowed.dropLast().joined(separator: ", ")) or \(allowed.last!), not '\(typed)'\(hint)")
            }
        }
        switch key.lowercased() {
        case "disablelocationfilter":
            if probe.bool(key) == nil { throw UsageError(message: "\(origin): \(key) takes true or false, not \(value.jsonText)") }
        case "locationfilterpolicy":
            try name(FilterPolicy.allCases.map(\.rawValue))
        case "kalmanprofile":
            try name(KalmanProfile.allCases.map(\.rawValue))
        default:
            if FilterConfig.number(probe, key) == nil {
                throw UsageError(message: "\(origin): \(key) takes a number ≥ 0, not \(value.jsonText)")
            }
        }
    }
}
