import BGeoReader

/// The three log rows of the upload conversation that come once per attempt (the others, the
/// refresh and drop rows, are rare and read as entries).
enum UploadRowKind: CaseIterable, Sendable {
    case request, response, backoff

    /// The event name the row states.
    var event: String {
        switch self {
        case .request: return "http.request"
        case .response: return "http.response"
        case .backoff: return "http.backoff"
        }
    }

    init?(event: String) {
        switch event {
        case "http.request": self = .request
        case "http.response": self = .response
        case "http.backoff": self = .backoff
        default: return nil
        }
    }

    /// The kind of a row read from its cells (its event compared as bytes, one read of the cell).
    init?(_ row: LogRowView) {
        guard let index = row.eventIndex(in: UploadRowKind.names) else { return nil }
        self = UploadRowKind.allCases[index]
    }

    /// The events' names as bytes, in `allCases` order.
    private static let names = allCases.map { Array($0.event.utf8) }
}
