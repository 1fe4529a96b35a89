import BGeoReader

/// What the timeline reads of a `queue.drop` row — its uuids, `status` and `count` — picked out of
/// the row's data by one field scan (`FieldScanner`), as `UploadRowFields` reads a request: a row
/// naming a million uuids costs their 16-byte keys while they are counted, not a JSON tree and a
/// string per uuid. The readings are those of the parsed value (`UploadTracker.strings`, `int`).
struct DropRowFields: Sendable {
    /// The data was a JSON object (the scan that read it validated it).
    private(set) var isObject = false
    /// The first `kept` uuids (string elements of `uuids`), in order.
    private(set) var uuids: [String] = []
    /// How many string elements `uuids` has.
    private(set) var uuidCount = 0
    /// The first `kept` distinct uuids, in order of first appearance.
    private(set) var distinctUUIDs: [String] = []
    /// How many distinct uuids there are.
    private(set) var distinctCount = 0
    private(set) var status: Int?
    private(set) var count: Int?

    private static let scanner = FieldScanner(paths: ["uuids", "status", "count"])

    /// The fields of `entry`'s data, keeping the first `kept` uuids (and distinct uuids).
    init(_ entry: LogEntry, kept: Int) {
        self = entry.withData { DropRowFields(data: $0, kept: kept) }
    }

    /// The fields of a row's `data` bytes (nil: the row has none), read from its cells or an entry.
    init(data: UnsafeBufferPointer<UInt8>?, kept: Int) {
        guard let data else { return }
        self = DropRowFields.scanner.withFields(of: data) { slots in
            var fields = DropRowFields()
            guard let slots else { return fields }
            fields.isObject = true
            fields.read(slots, in: data, kept: kept)
            return fields
        }
    }

    private init() {}

    /// "3 records" as the row states them; for a row whose data is not a JSON object, which
    /// states none, words that say so rather than "0 records".
    var recordsText: String {
        isObject ? "\(uuidCount) record\(uuidCount == 1 ? "" : "s")" : DropRowFields.unreadRecords
    }

    static let unreadRecords = "records (how many is not known: the row's data is not a JSON object)"

    private mutating func read(_ slots: UnsafeBufferPointer<FieldScanner.Field>, in data: UnsafeBufferPointer<UInt8>, kept: Int) {
        // Distinct uuids counted by their keys, sorted once at the end (memory: 16 bytes a uuid);
        // a text that is not a canonical uuid is counted by its bytes (`ExactText`, as SQLite's
        // UNIQUE counts it: `café` precomposed and decomposed are two).
        var keys: [UUIDKey] = []
        var others: Set<ExactText> = []
        var firstSeen: Set<ExactText> = []
        slots[0].forEachStringElement(in: data) { text in
            let uuid = text()
            if uuids.count < kept { uuids.append(uuid) }
            uuidCount += 1
            if distinctUUIDs.count < kept, firstSeen.insert(ExactText(uuid)).inserted { distinctUUIDs.append(uuid) }
            if let key = UUIDKey(uuid) { keys.append(key) } else { others.insert(ExactText(uuid)) }
        }
        keys.sort { ($0.high, $0.low) < ($1.high, $1.low) }
        var distinct = others.count
        for i in keys.indices where i == 0 || keys[i] != keys[i - 1] { distinct += 1 }
        distinctCount = distinct
        status = UploadRowFields.int(slots[1], in: data)
        count = UploadRowFields.int(slots[2], in: data)
    }
}
