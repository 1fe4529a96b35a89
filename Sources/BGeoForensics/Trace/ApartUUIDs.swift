import BGeoReader

/// The uuids whose copies are gathered apart (they fell, or may have fallen, into two groups):
/// kept by their text while they are few, and past `TraceWindows.apartUUIDs` in a Bloom filter of
/// their hashes, so memory stays bounded however many a dump has (a clock offset between the queue
/// and the log puts every uuid here). A filter's false alarm only sends one more uuid through the
/// gathering apart, which resolves any uuid exactly.
struct ApartUUIDs {
    /// The uuids by their bytes (all of them while `filter` is nil): SQLite, the filter's hashes and
    /// the spill keys tell uuids apart by bytes, so this set does too (`ExactText`).
    private(set) var exact: Set<ExactText> = []
    private var filter: UUIDFilter?
    private let limit: Int
    private let filterBits: Int

    init(limit: Int, filterBits: Int) {
        self.limit = limit
        self.filterBits = filterBits
    }

    init(exact: Set<ExactText>, limit: Int, filterBits: Int) {
        self.init(limit: limit, filterBits: filterBits)
        for uuid in exact { insert(uuid.text, hashes: UUIDFilter.hashes(uuid.text)) }
    }

    var isEmpty: Bool { exact.isEmpty && filter == nil }
    /// Whether every uuid is held by its text (none only perhaps in).
    var isExact: Bool { filter == nil }

    /// Whether `uuid` (with its `UUIDFilter.hashes`) is in, or perhaps in once the filter holds them.
    func contains(_ uuid: String, hashes: (UInt64, UInt64)) -> Bool {
        if let filter { return filter.contains(hashes: hashes) }
        return exact.contains(ExactText(uuid))
    }

    mutating func insert(_ uuid: String, hashes: (UInt64, UInt64)) {
        if let filter {
            _ = filter.insert(hashes: hashes)
            return
        }
        exact.insert(ExactText(uuid))
        if exact.count > limit {
            let filter = UUIDFilter(bits: filterBits)
            for uuid in exact { _ = filter.insert(hashes: UUIDFilter.hashes(uuid.text)) }
            exact = []
            self.filter = filter
        }
    }
}

extension [ApartUUIDs] {
    /// Whether any run's set holds `uuid`.
    func contains(_ uuid: String) -> Bool { contains(uuid, hashes: UUIDFilter.hashes(uuid)) }

    /// Whether any run's set holds `uuid`, whose `UUIDFilter.hashes` the caller has.
    func contains(_ uuid: String, hashes: (UInt64, UInt64)) -> Bool { contains { $0.contains(uuid, hashes: hashes) } }
}
