import BGeoReader

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

    /// What a row of `kind` states in `data` (nil: the row has none): nothing is scanned for a
    /// kind that reads no field (`EngineRowKind.readsFields`).
    init(_ kind: EngineRowKind, data: UnsafeBufferPointer<UInt8>?) {
        self.init(data: kind.readsFields ? data : nil)
    }

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

    private init() {}
}
