import BGeoReader

/// The three log rows of the upload conversation that come once per attempt (the others, the
/// refresh and drop rows, are rare and read as entries).
enum UploadRowKind: Sendable {
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

    /// The kind of a row read from its cells (its event compared as bytes).
    init?(_ row: LogRowView) {
        if row.eventIs("http.request") {
            self = .request
        } else if row.eventIs("http.response") {
            self = .response
        } else if row.eventIs("http.backoff") {
            self = .backoff
        } else {
            return nil
        }
    }
}
