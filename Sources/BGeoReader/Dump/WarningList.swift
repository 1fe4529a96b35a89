import Foundation

/// A `WarningLog` listed: each warning once, in order. The first `leadingCount` are in memory
/// (what a summary shows); a longer list is read from a tape in the working folder by `forEach`.
public struct WarningList: Sendable {
    /// How many warnings a list keeps in memory beside its tape: more than any summary shows.
    package static let leadingCount = 500

    /// How many warnings there are, each counted once.
    public let count: Int
    /// How many rows they name, each counted once (a row of one table; warnings without a row apart).
    public let rowCount: Int
    /// How many name no row (an input, a table, the state).
    public let rowlessCount: Int
    /// The first warnings (all of them when there is no tape).
    private let leading: [DumpWarning]
    private let tape: WarningTape?

    init(held: [DumpWarning]) {
        count = held.count
        leading = held
        tape = nil
        var rows: Set<RowName> = []
        for warning in held { if let row = warning.rowId { rows.insert(RowName(table: warning.table, row: row)) } }
        rowCount = rows.count
        rowlessCount = held.count { $0.rowId == nil }
    }

    private init(count: Int, rowCount: Int, rowlessCount: Int, leading: [DumpWarning], tape: WarningTape?) {
        self.count = count
        self.rowCount = rowCount
        self.rowlessCount = rowlessCount
        self.leading = leading
        self.tape = tape
    }

    private struct RowName: Hashable {
        let table: String
        let row: Int64
    }

    /// No warnings.
    public static let none = WarningList(held: [])

    public var isEmpty: Bool { count == 0 }

    /// Every warning, in order: for tests and lists known to be small. A tape that cannot be
    /// read ends it early.
    package var all: [DumpWarning] {
        var all: [DumpWarning] = []
        try? forEach { all.append($0) }
        return all
    }

    /// The first `n` warnings (at most `leadingCount` when the list is on tape).
    public func prefix(_ n: Int) -> [DumpWarning] { Array(leading.prefix(n)) }

    /// Calls `body` with each warning, in order; reads a list on tape as it goes.
    public func forEach(_ body: (DumpWarning) throws -> Void) throws {
        guard let tape else {
            for warning in leading { try body(warning) }
            return
        }
        // The tape's reading throws only its own errors: the body's are carried out beside it.
        var failure: (any Error)?
        try tape.read(0..<count) { warning throws(WorkFileError) in
            guard failure == nil else { return }
            do { try body(warning) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The warnings of `parts` (read in turn) with each repeat dropped where it repeats: in memory
    /// without a folder; else by two external sorts in `folder` — by the warning, to keep each
    /// one's first place, then by that place — so memory stays bounded.
    static func dropRepeats(of parts: [WarningPiece], folder: WorkFolder?) throws(WorkFileError) -> WarningList {
        guard let folder else {
            var seen: Set<DumpWarning> = [], kept: [DumpWarning] = []
            for part in parts { try part.forEach { warning in if seen.insert(warning).inserted { kept.append(warning) } } }
            return WarningList(held: kept)
        }
        let byWarning = SortedRuns(folder: folder, stem: "warnings-by-content")
        var place: UInt64 = 0
        for part in parts {
            try part.forEach { warning throws(WorkFileError) in
                var key = SpillKey()
                key.append(bytes: warning.sortKey)
                key.append(place)
                try byWarning.add(key: key) { sink in
                    sink.put(Int64(bitPattern: place))
                    warning.write(to: sink)
                }
                place += 1
            }
        }
        let inOrder = SortedRuns(folder: folder, stem: "warnings-in-order")
        let cursor = try byWarning.cursor()
        // In key order a warning's repeats follow it, and a row's warnings follow each other.
        var previous: DumpWarning?
        var addFailure: WorkFileError?
        var rowCount = 0, rowlessCount = 0
        while cursor.next({ record in
            var record = record
            let place = record.int64()
            let warning = DumpWarning(from: &record)
            guard warning != previous, addFailure == nil else { return }
            if let row = warning.rowId {
                if previous?.rowId != row || previous?.table != warning.table { rowCount += 1 }
            } else {
                rowlessCount += 1
            }
            previous = warning
            var key = SpillKey()
            key.append(UInt64(bitPattern: place))
            do throws(WorkFileError) { try inOrder.add(key: key) { warning.write(to: $0) } } catch { addFailure = error }
        }) {}
        if let failure = cursor.failure ?? addFailure { throw failure }
        let tape = try WarningTape(folder: folder)
        var leading: [DumpWarning] = []
        let ordered = try inOrder.cursor()
        while ordered.next({ record in
            var record = record
            let warning = DumpWarning(from: &record)
            if leading.count < leadingCount { leading.append(warning) }
            tape.append(warning)
        }) {}
        if let failure = ordered.failure { throw failure }
        return WarningList(count: tape.records, rowCount: rowCount, rowlessCount: rowlessCount, leading: leading, tape: tape)
    }
}
