import BGeoReader

/// The three log rows of the upload conversation that come once per attempt (the others, the
/// refresh and drop rows, are rare and read as entries).
enum UploadRowKind: CaseIterable, Sendable {
    case request, response, backoff

    /// The event name the row states.
    var event: String { staticEvent.description }

    /// The event name, as the bytes a row's cell is compared with (`TimelineRowEvent`).
    var staticEvent: StaticString {
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
}
