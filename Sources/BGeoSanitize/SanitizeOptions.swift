import BGeoForensics
/// What happens to positions.
public enum CoordinatePolicy: Sendable, Equatable, CustomStringConvertible {
    case keep
    /// A secret rotation of the sphere about the polar axis (plus, at random, the half-turn that
    /// swaps hemispheres): every distance, speed and gap, so every replay decision, is unchanged.
    case shift
    /// Positions snapped to a grid of about `metres` (replay results may change).
    case coarsen(metres: Double)

    /// Parses `keep`, `shift` or `coarsen=METERS`.
    public init?(argument: String) {
        switch argument {
        case "keep": self = .keep
        case "shift": self = .shift
        default:
            guard argument.hasPrefix("coarsen="), let metres = Double(argument.dropFirst("coarsen=".count)),
                  metres.isFinite, metres >= 1, metres <= 1_000_000 else { return nil }
            self = .coarsen(metres: metres)
        }
    }

    public var description: String {
        switch self {
        case .keep: return "keep"
        case .shift: return "shift"
        case .coarsen(let metres): return "coarsen=" + DecimalText.format(metres, places: 3)
        }
    }
}

/// Everything `sanitize` was asked to do.
public struct SanitizeOptions: Sendable, Equatable {
    public var extras: ExtrasPolicy
    public var urls: URLPolicy
    public var coordinates: CoordinatePolicy
    /// Replace an existing output file.
    public var force: Bool

    public init(extras: ExtrasPolicy = .hash, urls: URLPolicy = .host, coordinates: CoordinatePolicy = .shift, force: Bool = false) {
        self.extras = extras
        self.urls = urls
        self.coordinates = coordinates
        self.force = force
    }

    /// The options as recorded in the report and in the output's `state.sanitized`.
    public var json: JSONValue {
        ["extras": .string(extras.rawValue), "urls": .string(urls.rawValue), "coords": .string(coordinates.description)]
    }

    /// True when nothing but secrets is removed: unreadable JSON can then be kept as (scrubbed) text.
    var keepsCustomerData: Bool { extras == .keep && coordinates == .keep }
}
