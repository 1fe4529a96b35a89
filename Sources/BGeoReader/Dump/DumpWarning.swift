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
