import BGeoReader

/// The engine rows that come once per fix or attempt on a busy log (a heartbeat, a connectivity
/// change, a filtered fix, a token refresh and its result): the timeline reads them from their
/// cells, as it reads the upload rows (`UploadRowKind`), when no observer wants their entries.
enum EngineRowKind: CaseIterable, Sendable {
    case heartbeat, connectivity, filterReject, filterAdjust, refreshRequest, refreshResult

    /// The event name the row states.
    var event: String {
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

    /// The kind of a row read from its cells (its event compared as bytes, one read of the cell).
    init?(_ row: LogRowView) {
        guard let kind = row.withEvent({ bytes -> EngineRowKind? in
            guard let bytes else { return nil }
            return EngineRowKind.byName.first { $0.name.elementsEqual(bytes) }?.kind
        }) else { return nil }
        self = kind
    }

    private static let byName: [(name: [UInt8], kind: EngineRowKind)] = allCases.map { (Array($0.event.utf8), $0) }
}

/// What the timeline reads of an engine row's `data`: a few fields by one field scan (no tree),
/// whether the row is read from its cells or from a built `LogEntry`, so the two paths cannot
/// disagree. The readings are the tree's: strings as stated, `connected` a JSON flag, `success`
/// a flag or an integer (non-zero: success), `status` as `UploadTracker.int` reads it; data
/// that is not a JSON object states nothing.
struct EngineRowFields {
    /// The data was a JSON object (the scan that read it validated it).
    private(set) var isObject = false
    var reason: String?
    var connected: Bool?
    var transport: String?
    var success: Bool?
    var status: Int?

    private static let scanner = FieldScanner(paths: ["reason", "connected", "transport", "success", "status"])

    /// The fields of `data` (nil: the row has none).
    init(data: UnsafeBufferPointer<UInt8>?) {
        guard let data else { return }
        self = EngineRowFields.scanner.withFields(of: data) { slots in
            var fields = EngineRowFields()
            guard let slots else { return fields }
            fields.isObject = true
            fields.reason = slots[0].string(in: data)
            fields.connected = slots[1].bool
            fields.transport = slots[2].string(in: data)
            fields.success = slots[3].bool ?? UploadRowFields.int(slots[3], in: data).map { $0 != 0 }
            fields.status = UploadRowFields.int(slots[4], in: data)
            return fields
        }
    }

    init() {}
}
