import BGeoForensics
/// What was done to one cell, for the sanitisation report.
struct CellChanges: OptionSet, Sendable {
    let rawValue: UInt8

    /// A secret replaced by its fingerprint.
    static let secrets = CellChanges(rawValue: 1)
    /// A URL cut to its host, or its credentials fingerprinted.
    static let urls = CellChanges(rawValue: 2)
    /// Customer data (extras, params, app lines) hashed or dropped.
    static let extras = CellChanges(rawValue: 4)
    /// A position moved (shifted or snapped to the grid).
    static let coordinates = CellChanges(rawValue: 8)
    /// Content that could not be read field by field, replaced by a placeholder.
    static let withheld = CellChanges(rawValue: 16)
}

/// Counts for one column: rows read, cells changed, and cells per kind of change.
public struct ColumnTally: Sendable, Equatable {
    public internal(set) var changed = 0
    public internal(set) var secrets = 0
    public internal(set) var urls = 0
    public internal(set) var extras = 0
    public internal(set) var coordinates = 0
    public internal(set) var withheld = 0

    mutating func add(_ changes: CellChanges) {
        guard !changes.isEmpty else { return }
        changed += 1
        if changes.contains(.secrets) { secrets += 1 }
        if changes.contains(.urls) { urls += 1 }
        if changes.contains(.extras) { extras += 1 }
        if changes.contains(.coordinates) { coordinates += 1 }
        if changes.contains(.withheld) { withheld += 1 }
    }

    var json: JSONValue {
        ["changed": .from(changed), "secrets": .from(secrets), "urls": .from(urls), "extras": .from(extras),
         "coordinates": .from(coordinates), "withheld": .from(withheld)]
    }

    /// "412 cells changed (secrets in 3, customer data in 400)" (kinds with a zero count left out).
    var text: String {
        let kinds = [("secrets", secrets), ("URLs", urls), ("customer data", extras), ("positions", coordinates),
                     ("withheld (unreadable JSON)", withheld)]
            .filter { $0.1 > 0 }.map { "\($0.0) in \($0.1)" }
        return "\(changed) cell\(changed == 1 ? "" : "s") changed" + (kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")")
    }
}

/// Counts for one table: rows copied and each column's tally, in column order.
public struct TableTally: Sendable, Equatable {
    public let table: String
    /// Rows read from the dump.
    public internal(set) var rows = 0
    /// Rows read but not copied: they break their table's own definition (a damaged dump).
    public internal(set) var leftOut = 0
    public internal(set) var columns: [(name: String, tally: ColumnTally)]

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns.map { ($0, ColumnTally()) }
    }

    public static func == (lhs: TableTally, rhs: TableTally) -> Bool {
        lhs.table == rhs.table && lhs.rows == rhs.rows && lhs.leftOut == rhs.leftOut && lhs.columns.map(\.name) == rhs.columns.map(\.name)
            && lhs.columns.map(\.tally) == rhs.columns.map(\.tally)
    }

    /// The tally of `column` (zero when the table has no such column).
    public func tally(_ column: String) -> ColumnTally {
        columns.first { $0.name == column }?.tally ?? ColumnTally()
    }

    var json: JSONValue {
        var columnsObject = JSONObject()
        for column in columns where column.tally.changed > 0 { columnsObject[column.name] = column.tally.json }
        return ["table": .string(table), "rows": .from(rows), "leftOut": .from(leftOut), "columns": .object(columnsObject)]
    }
}
