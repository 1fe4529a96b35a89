import BGeoReader
import Foundation

/// A what-if's overrides (`--config FILE.json`, then each `--set KEY=VALUE`), read and checked
/// once, before the recorded config they apply to is known (replay learns it beside the trace's
/// read): a bad one fails before any scan.
public struct ReplayOverrides: Sendable {
    /// Each key set, in order.
    private var settings: [(key: String, value: JSONValue)] = []
    /// The overrides as given (`ReplayConfiguration.overrides`).
    private var labels: [String] = []

    /// Reads `configFile` (its object merged over the config; `{"config": {...}}`, a saved state
    /// value, is unwrapped) and then `sets` (SDK key names, case-insensitive).
    public init(configFile: String?, sets: [String]) throws(UsageError) {
        if let path = configFile {
            var object = try ConfigFile.object(at: path)
            if let inner = object.valueIgnoringCase("config")?.objectValue,
               !FilterConfig.keys.contains(where: { object.valueIgnoringCase($0) != nil }) {
                object = inner
            }
            for member in object {
                if FilterConfig.keys.contains(where: { $0.lowercased() == member.key.lowercased() }) {
                    try ReplayConfiguration.validate(key: member.key, value: member.value, origin: "--config \(path)")
                }
                settings.append((member.key, member.value))
            }
            labels.append("--config \((path as NSString).lastPathComponent)")
        }
        for text in sets {
            guard let (key, value) = SDKConfig.parseOverride(text) else {
                throw UsageError(message: "--set takes KEY=VALUE (e.g. locationFilterPolicy=Adjust), not '\(text)'")
            }
            guard let canonical = FilterConfig.keys.first(where: { $0.lowercased() == key.lowercased() }) else {
                throw UsageError(message: "--set: '\(key)' does not affect replay; the filter keys are "
                    + FilterConfig.keys.joined(separator: ", "))
            }
            try ReplayConfiguration.validate(key: canonical, value: value, origin: "--set")
            settings.append((canonical, value))
            labels.append("\(canonical)=\(value.stringValue ?? value.jsonText)")
        }
    }

    /// `base` with every override applied, in order.
    public func applied(to base: ReplayConfiguration) -> ReplayConfiguration {
        var configuration = base
        for setting in settings { configuration.sdkConfig.set(path: setting.key, to: setting.value) }
        configuration.overrides += labels
        return configuration
    }
}
