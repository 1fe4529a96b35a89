import BGeoReader

/// Record uuids as an upload attempt cites them, kept small: the timeline holds up to
/// `attemptLimit` attempts with up to `uuidLimit` uuids each (400,000 on a dump of many short
/// sessions), and a uuid as a `String` costs its 36 bytes on the heap plus a header and the
/// allocator's rounding. A canonical uuid (what the SDK writes) is kept as its 16-byte
/// `UUIDKey` and written back as the same text; any other text is kept as it is. Reads as a
/// collection of the texts, in order.
public struct UUIDList: Sendable, Equatable, RandomAccessCollection, ExpressibleByArrayLiteral {
    private enum Item: Sendable, Equatable {
        case key(UUIDKey)
        case text(String)
    }

    private var items: [Item]

    public init(_ uuids: some Sequence<String>) {
        items = uuids.map { uuid in UUIDKey(uuid).map(Item.key) ?? .text(uuid) }
    }

    public init(arrayLiteral uuids: String...) { self.init(uuids) }

    public var startIndex: Int { items.startIndex }
    public var endIndex: Int { items.endIndex }

    public subscript(position: Int) -> String {
        switch items[position] {
        case .key(let key): return key.text
        case .text(let text): return text
        }
    }
}
