import BGeoReader

/// A table of the report: column headings, the rows embedded in the page (as JSON for the
/// inline table script), the exact total, and a note when rows were left out.
public struct ReportTable: Sendable {
    public struct Column: Sendable {
        public var label: String
        public var numeric: Bool
        /// Ids, uuids, kinds and times: one line in monospace, cut with an ellipsis and shown
        /// whole on hover, never wrapped mid-word ("locati/on").
        public var identifier: Bool
        public init(_ label: String, numeric: Bool = false, identifier: Bool = false) {
            self.label = label
            self.numeric = numeric
            self.identifier = identifier
        }
    }

    /// Element id (`queue`, `log`, `attempts`); row anchors are `<id>-<row id>`.
    public var id: String
    public var title: String
    public var columns: [Column]
    public var rows: [[JSONValue]]
    /// Anchor of each embedded row.
    public var anchors: [String]
    /// Rows in the dump (embedded or not).
    public var total: Int
    /// Shown when `rows.count < total`.
    public var note: String?
    /// Each row in words for a finding's evidence list, when the table gives them (the log:
    /// `data` as `key value` pairs, not JSON with escaped quotes); otherwise cells are joined.
    public var evidenceLines: [String] = []

    public init(id: String, title: String, columns: [Column], rows: [[JSONValue]] = [], anchors: [String] = [],
                total: Int = 0, note: String? = nil) {
        self.id = id
        self.title = title
        self.columns = columns
        self.rows = rows
        self.anchors = anchors
        self.total = total
        self.note = note
    }

    /// The embedded data block the table script reads.
    public var json: JSONValue {
        .object(JSONObject([
            ("id", .string(id)),
            ("columns", .array(columns.map { column in
                var members: [(String, JSONValue)] = [("label", .string(column.label)), ("num", .bool(column.numeric))]
                if column.identifier { members.append(("id", .bool(true))) }
                return .object(JSONObject(members))
            })),
            ("anchors", .array(anchors.map { .string($0) })),
            ("rows", .array(rows.map { .array($0) })),
            ("total", .int(Int64(total))),
        ]))
    }
}

/// Keeps the first `head` and last `tail` items of a stream, plus any item `force` selects, in
/// stream order: a million-row table becomes a few thousand embedded rows with the evidence intact.
struct RowSampler<Item> {
    let head: Int
    let tail: Int
    private(set) var first: [(Int, Item)] = []
    private var ring: [(Int, Item)?]
    private var ringNext = 0
    private(set) var forced: [(Int, Item)] = []
    private(set) var seen = 0

    init(head: Int, tail: Int) {
        self.head = head
        self.tail = tail
        ring = Array(repeating: nil, count: max(tail, 0))
    }

    mutating func add(_ item: Item, force: Bool) {
        defer { seen += 1 }
        if first.count < head { first.append((seen, item)); return }
        if force { forced.append((seen, item)) }
        if tail > 0 {
            ring[ringNext] = (seen, item)
            ringNext = (ringNext + 1) % tail
        }
    }

    /// Kept items in stream order, each once.
    var items: [Item] {
        var all = first
        let tailItems = ring.compactMap { $0 }
        all += tailItems
        var indices = Set(all.map(\.0))
        for f in forced where indices.insert(f.0).inserted { all.append(f) }
        return all.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
