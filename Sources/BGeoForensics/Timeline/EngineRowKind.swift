import BGeoReader

/// The engine rows that come once per fix or attempt on a busy log (a heartbeat, a connectivity
/// change, a filtered fix, a token refresh and its result): the timeline reads them from their
/// cells, as it reads the upload rows (`UploadRowKind`), when no observer wants their entries.
enum EngineRowKind: Int, CaseIterable, Sendable {
    case heartbeat, connectivity, filterReject, filterAdjust, refreshRequest, refreshResult

    /// The event name the row states.
    var event: String { staticEvent.description }

    /// The event name, as the bytes a row's cell is compared with (`TimelineRowEvent`).
    var staticEvent: StaticString {
        switch self {
        case .heartbeat: return "heartbeat"
        case .connectivity: return "connectivity"
        case .filterReject: return "filter.reject"
        case .filterAdjust: return "filter.adjust"
        case .refreshRequest: return "auth.refresh"
        case .refreshResult: return "auth.refresh.result"
        }
    }

    /// Whether the handling reads fields of the row's data (else the data is only checked).
    var readsFields: Bool { self != .heartbeat && self != .refreshRequest }

    init?(event: String) {
        guard let kind = EngineRowKind.allCases.first(where: { $0.event == event }) else { return nil }
        self = kind
    }
}

/// A set of engine row kinds as bits: asked once per row, with no hashing and no reference count
/// (a `Set` shared by the workers of a piped read was hashed and retained on every row).
struct EngineRowKinds: Sendable {
    private var bits: UInt8 = 0

    init(_ kinds: some Sequence<EngineRowKind>) {
        for kind in kinds { bits |= 1 << kind.rawValue }
    }

    static let all = EngineRowKinds(EngineRowKind.allCases)

    var isEmpty: Bool { bits == 0 }

    func contains(_ kind: EngineRowKind) -> Bool { bits & (1 << kind.rawValue) != 0 }
}
