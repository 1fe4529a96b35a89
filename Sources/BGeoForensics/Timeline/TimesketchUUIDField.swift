import BGeoReader

/// A Timesketch line's `uuid` field: the uuids the line is about, space-separated, as many whole
/// ones, in order, as fit in `maxBytes`; every one counted. OpenSearch refuses a document whose
/// keyword field passes 32,766 bytes, and Timesketch before 2026-02 (google/timesketch#3731)
/// indexed the field as a keyword: a `queue.drop` row of 900 uuids made a line it rejected whole.
/// The line's message says how many were left out (`note`).
struct TimesketchUUIDField {
    /// Below OpenSearch's 32,766-byte keyword limit.
    static let maxBytes = 32_000

    /// The field's text ("" for none: written as null).
    private(set) var text = ""
    /// Uuids in `text`.
    private(set) var listed = 0
    /// Uuids the line is about.
    private(set) var count = 0

    init() {}

    init(_ uuids: some Sequence<String>) {
        for uuid in uuids { add(uuid) }
    }

    /// Adds `uuid` to the count, and to the text while every uuid before it fitted and it does.
    mutating func add(_ uuid: String) {
        count += 1
        guard listed == count - 1 else { return }
        let separator = listed == 0 ? 0 : 1
        guard text.utf8.count + separator + uuid.utf8.count <= TimesketchUUIDField.maxBytes else { return }
        if separator == 1 { text += " " }
        text += uuid
        listed += 1
    }

    /// " (2000 uuids; the uuid field lists the first 864)" when some are left out.
    var note: String {
        count > listed ? " (\(count) uuids; the uuid field lists the first \(listed))" : ""
    }
}
