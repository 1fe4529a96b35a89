import BGeoReader

/// The log's counts and edges for `inspect`, read in one pass — or, for a large log, in two
/// halves on two connections at once (`ScanRunner`'s **two parts** rule), merged exactly as one
/// pass would have found them (issue 27: on a dump whose log is ten times its queue the log was
/// the one long read, on one core).
struct LogTally {
    var count = 0
    /// Rows per level (only levels some row has).
    var byLevel: [Int: Int] {
        var levels = otherLevels
        for (level, rows) in levelCounts.enumerated() where rows > 0 { levels[level] = rows }
        return levels
    }
    /// The SDK's levels (0–7) counted in place per row; any other a row states, by key.
    private var levelCounts = [Int](repeating: 0, count: 8)
    private var otherLevels: [Int: Int] = [:]
    var pendingUpload = 0
    /// The earliest and latest times and the first rows that hold them.
    var first: (time: Double, row: Int64)?
    var last: (time: Double, row: Int64)?
    /// 2 when the log was read in two halves at once, else 1.
    var passes = 1
    /// The secrets the rows state, when the tally learns them (`LogSecrets`: the redactor is
    /// needed only once the log has been read).
    var secrets: LogSecrets?

    /// Reads `dump`'s log; below `minimumSplitRows` row ids in one pass (a second thread costs more).
    static func read(_ dump: Dump, learningSecrets: Bool = false, minimumSplitRows: Int64 = 50_000) -> LogTally {
        guard dump.layout.hasLog, let halves = dump.rowHalves(of: "log_entries", minimumRows: minimumSplitRows),
              let parts = ScanRunner.inTwoParts(dump, first: { LogTally($0, rows: halves.first, learningSecrets: learningSecrets) },
                                                later: { LogTally($0, rows: halves.second, learningSecrets: learningSecrets) },
                                                whole: { _, _ in true }) else {
            return LogTally(dump, rows: nil, learningSecrets: learningSecrets)
        }
        var tally = parts.first
        tally.append(parts.later)
        tally.passes = 2
        return tally
    }

    /// One pass over the log rows with ids in `rows` (all when nil), from their cells.
    init(_ dump: Dump, rows: Range<Int64>?, learningSecrets: Bool = false) {
        var counting = LogQuery()
        counting.includeText = false
        var tally = LogTally()
        if learningSecrets { tally.secrets = LogSecrets() }
        // One access to the captured tally per row (`see`): each access to a variable an escaping
        // closure captures is checked for exclusivity at run time, and six per row showed.
        withoutActuallyEscaping({ (row: LogRowView) -> Bool in
            tally.see(row)
            return true
        }) { take in
            dump.forEachLogEntry(counting, rows: rows, takenFromCells: take) { _ in }
        }
        self = tally
    }

    private init() {}

    /// Counts one row.
    private mutating func see(_ row: LogRowView) {
        secrets?.see(row)
        count += 1
        let level = row.level
        if level >= 0, level < levelCounts.count { levelCounts[level] += 1 } else { otherLevels[level, default: 0] += 1 }
        if !row.uploaded { pendingUpload += 1 }
        let time = row.time
        if first.map({ time < $0.time }) ?? true { first = (time, row.rowId) }
        if last.map({ time > $0.time }) ?? true { last = (time, row.rowId) }
    }

    /// Adds the tally of the rows that follow this one's, as one pass would have continued.
    mutating func append(_ later: LogTally) {
        if let learned = later.secrets { secrets?.add(learned) }
        count += later.count
        pendingUpload += later.pendingUpload
        for level in levelCounts.indices { levelCounts[level] += later.levelCounts[level] }
        otherLevels.merge(later.otherLevels, uniquingKeysWith: +)
        if let edge = later.first, first.map({ edge.time < $0.time }) ?? true { first = edge }
        if let edge = later.last, last.map({ edge.time > $0.time }) ?? true { last = edge }
    }
}
