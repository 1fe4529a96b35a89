import BGeoReader

/// What the teleport check does with a fix that moved faster than `locationFilterMaxSpeed`.
public enum FilterPolicy: String, Sendable, CaseIterable {
    /// Drop the fix (engine default).
    case conservative = "Conservative"
    /// Move the fix along the great circle to the speed limit.
    case adjust = "Adjust"
    /// Skip the teleport check and Kalman smoothing; only the accuracy gate applies.
    case passThrough = "PassThrough"

    /// Case-insensitive, as the engine reads it; anything unknown is Conservative.
    public init(parsing text: String?) {
        let lowered = text?.lowercased() ?? ""
        self = FilterPolicy.allCases.first { $0.rawValue.lowercased() == lowered } ?? .conservative
    }

    /// True when `text` names a policy (so callers can say that an unknown one fell back).
    public static func isKnown(_ text: String) -> Bool {
        allCases.contains { $0.rawValue.lowercased() == text.lowercased() }
    }
}

/// The Kalman tuning: scales of process noise `q` and measurement noise `r`.
public enum KalmanProfile: String, Sendable, CaseIterable {
    case `default` = "DEFAULT"
    case aggressive = "AGGRESSIVE"
    case conservative = "CONSERVATIVE"

    /// Case-insensitive; anything unknown is DEFAULT.
    public init(parsing text: String?) {
        let lowered = text?.lowercased() ?? ""
        self = KalmanProfile.allCases.first { $0.rawValue.lowercased() == lowered } ?? .default
    }

    public static func isKnown(_ text: String) -> Bool {
        allCases.contains { $0.rawValue.lowercased() == text.lowercased() }
    }

    /// `(q, r)` per replay-semantics.md: DEFAULT (1, 1), AGGRESSIVE (2, 0.5), CONSERVATIVE (0.5, 2).
    public var scales: (q: Double, r: Double) {
        switch self {
        case .default: return (1.0, 1.0)
        case .aggressive: return (2.0, 0.5)
        case .conservative: return (0.5, 2.0)
        }
    }
}

/// The six config keys the filter pipeline reads, with the engine defaults of replay-semantics.md.
public struct FilterConfig: Sendable, Equatable {
    public var disableLocationFilter: Bool
    /// Metres; fixes whose accuracy is unknown or greater are rejected.
    public var locationFilterMaxAccuracy: Double
    /// Metres per second; faster implied speeds are teleports.
    public var locationFilterMaxSpeed: Double
    public var policy: FilterPolicy
    public var kalmanProfile: KalmanProfile
    /// Metres; 0 disables the odometer gate.
    public var odometerAccuracyThreshold: Double

    /// The SDK key names, in the order outputs list them.
    public static let keys = ["disableLocationFilter", "locationFilterMaxAccuracy", "locationFilterMaxSpeed",
                              "locationFilterPolicy", "kalmanProfile", "odometerAccuracyThreshold"]

    /// Engine defaults.
    public init(disableLocationFilter: Bool = false, locationFilterMaxAccuracy: Double = 100,
                locationFilterMaxSpeed: Double = 60, policy: FilterPolicy = .conservative,
                kalmanProfile: KalmanProfile = .default, odometerAccuracyThreshold: Double = 0) {
        self.disableLocationFilter = disableLocationFilter
        self.locationFilterMaxAccuracy = locationFilterMaxAccuracy
        self.locationFilterMaxSpeed = locationFilterMaxSpeed
        self.policy = policy
        self.kalmanProfile = kalmanProfile
        self.odometerAccuracyThreshold = odometerAccuracyThreshold
    }

    /// Reads the SDK keys (case-insensitive) from a config; absent or unusable values take the
    /// engine default. `FilterConfig.notes(for:)` says which values were unusable.
    public init(config: SDKConfig) {
        let defaults = FilterConfig()
        disableLocationFilter = config.bool("disableLocationFilter") ?? defaults.disableLocationFilter
        locationFilterMaxAccuracy = FilterConfig.number(config, "locationFilterMaxAccuracy") ?? defaults.locationFilterMaxAccuracy
        locationFilterMaxSpeed = FilterConfig.number(config, "locationFilterMaxSpeed") ?? defaults.locationFilterMaxSpeed
        policy = FilterPolicy(parsing: config.string("locationFilterPolicy"))
        kalmanProfile = KalmanProfile(parsing: config.string("kalmanProfile"))
        odometerAccuracyThreshold = FilterConfig.number(config, "odometerAccuracyThreshold") ?? defaults.odometerAccuracyThreshold
    }

    /// A finite number, also from a numeric string (old apps sent strings). Negative speed and
    /// accuracy limits make no sense to the engine either, so they fall back to the default.
    static func number(_ config: SDKConfig, _ key: String) -> Double? {
        guard let value = config[key] else { return nil }
        let number = value.doubleValue ?? value.stringValue.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard let number, number.isFinite, number >= 0 else { return nil }
        return number
    }

    /// Plain sentences about keys that are absent (engine default used) or whose value the engine
    /// would not understand (default used instead).
    public static func notes(for config: SDKConfig) -> [String] {
        var notes: [String] = []
        var defaulted: [String] = []
        for key in keys {
            guard let value = config[key] else { defaulted.append(key); continue }
            switch key {
            case "disableLocationFilter":
                if config.bool(key) == nil { notes.append("\(key) = \(value.jsonText) is not a boolean; engine default false used") }
            case "locationFilterPolicy":
                if let text = value.stringValue, FilterPolicy.isKnown(text) { break }
                notes.append("\(key) = \(value.jsonText) is not Conservative, Adjust or PassThrough; the engine reads it as Conservative")
            case "kalmanProfile":
                if let text = value.stringValue, KalmanProfile.isKnown(text) { break }
                notes.append("\(key) = \(value.jsonText) is not DEFAULT, AGGRESSIVE or CONSERVATIVE; the engine reads it as DEFAULT")
            default:
                if number(config, key) == nil {
                    notes.append("\(key) = \(value.jsonText) is not a usable number; engine default \(JSONWriter.format(FilterConfig().number(key)))")
                }
            }
        }
        if !defaulted.isEmpty { notes.append("engine defaults for: " + defaulted.joined(separator: ", ")) }
        return notes
    }

    private func number(_ key: String) -> Double {
        switch key {
        case "locationFilterMaxAccuracy": return locationFilterMaxAccuracy
        case "locationFilterMaxSpeed": return locationFilterMaxSpeed
        default: return odometerAccuracyThreshold
        }
    }

    /// The effective keys under their SDK names, in `keys` order (deterministic output).
    public var json: JSONValue {
        [
            "disableLocationFilter": .bool(disableLocationFilter),
            "locationFilterMaxAccuracy": .double(locationFilterMaxAccuracy),
            "locationFilterMaxSpeed": .double(locationFilterMaxSpeed),
            "locationFilterPolicy": .string(policy.rawValue),
            "kalmanProfile": .string(kalmanProfile.rawValue),
            "odometerAccuracyThreshold": .double(odometerAccuracyThreshold),
        ]
    }

    /// One line for humans: `Conservative, maxAccuracy 100 m, maxSpeed 60 m/s, Kalman DEFAULT, odometer gate off`.
    public var summary: String {
        if disableLocationFilter { return "filter disabled (disableLocationFilter = true): every fix accepted as is" }
        let gate = odometerAccuracyThreshold > 0 ? "odometer gate \(Self.trim(odometerAccuracyThreshold)) m" : "odometer gate off"
        return "\(policy.rawValue), maxAccuracy \(Self.trim(locationFilterMaxAccuracy)) m, maxSpeed \(Self.trim(locationFilterMaxSpeed)) m/s, "
            + "Kalman \(kalmanProfile.rawValue), \(gate)"
    }

    static func trim(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : JSONWriter.format(value)
    }
}
