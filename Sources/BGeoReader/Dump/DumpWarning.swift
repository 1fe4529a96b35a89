import Foundation
import Synchronization

/// A located problem with one row (or one table) of a dump. The row is skipped or read in part;
/// everything else is still read.
public struct DumpWarning: Sendable, Hashable, CustomStringConvertible {
    /// The table the row lives in (`location_events`, `log_entries`, `state`, `queue`).
    public let table: String
    /// The row id (for `state`, nil; the key is named in the message).
    public let rowId: Int64?
    public let message: String

    public init(table: String, rowId: Int64?, message: String) {
        self.table = table
        self.rowId = rowId
        self.message = message
    }

    public var description: String {
        if let rowId { return "\(table) row \(rowId): \(message)" }
        return "\(table): \(message)"
    }

    public var json: JSONValue {
        ["table": .string(table), "rowId": rowId.map { .int($0) } ?? .null, "message": .string(message)]
    }
}

/// Collects warnings once each, in the order found. Safe to add to from several threads: the
/// list lives in a `Mutex`.
public final class WarningLog: Sendable {
    private struct Entries {
        var ordered: [DumpWarning] = []
        var seen: Set<DumpWarning> = []
    }
    private let entries = Mutex(Entries())

    public init() {}

    /// Every warning, in the order found.
    public var all: [DumpWarning] { entries.withLock { $0.ordered } }

    public func add(_ warning: DumpWarning) {
        entries.withLock { entries in
            if entries.seen.insert(warning).inserted { entries.ordered.append(warning) }
        }
    }

    public func add(table: String, rowId: Int64?, _ message: String) {
        add(DumpWarning(table: table, rowId: rowId, message: message))
    }

    /// How many warnings there are so far (a place to `place` others at later).
    public var count: Int { entries.withLock { $0.ordered.count } }

    /// Puts `other`'s warnings at `index` (a past `count`), in their order, as if they had been
    /// found there: one of them found since is moved there, not repeated. For work done on
    /// another connection beside the reads that followed it, whose warnings must read as if it
    /// had been done first.
    public func place(_ other: WarningLog, at index: Int) {
        let placed = other.all
        guard !placed.isEmpty else { return }
        entries.withLock { entries in
            let moving = Set(placed)
            let head = entries.ordered.prefix(min(index, entries.ordered.count))
            let tail = entries.ordered.dropFirst(head.count)
            let before = Set(head)
            entries.ordered = Array(head) + placed.filter { !before.contains($0) } + tail.filter { !moving.contains($0) }
            entries.seen.formUnion(moving)
        }
    }

    /// Moves the warnings found since `start` (a past `count`) to `index` (an earlier one), as
    /// `place` puts another log's there: for a scan done after others whose warnings must read as
    /// if it had been done before them.
    public func moveWarnings(since start: Int, to index: Int) {
        let moved = WarningLog()
        let tail = entries.withLock { entries in
            let tail = Array(entries.ordered.dropFirst(start))
            entries.ordered.removeLast(tail.count)
            for warning in tail { entries.seen.remove(warning) }
            return tail
        }
        for warning in tail { moved.add(warning) }
        place(moved, at: index)
    }

    /// Appends another log's warnings after this one's (keeps per-table order when two tables
    /// were scanned in parallel).
    public func add(contentsOf other: WarningLog) {
        for warning in other.all { add(warning) }
    }
}
