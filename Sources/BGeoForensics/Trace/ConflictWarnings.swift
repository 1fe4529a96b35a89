import BGeoReader

/// The trace's warnings about conflicting copies, met in assembly order and reported in log-row
/// order (as the in-memory merge meets them: by the row they are about, then as met). The first
/// `held` are kept in memory; past them, with a working folder, all go to an external sort
/// (`SortedRuns`), so a dump whose every line conflicts costs disk, not memory.
final class ConflictWarnings {
    /// How many warnings are sorted in memory before they go to disk.
    static let heldWarnings = 10_000

    private var held: [DumpWarning] = []
    private var runs: SortedRuns?
    private let folder: WorkFolder?
    private let heldLimit: Int
    private var met = 0
    private var failure: WorkFileError?

    init(folder: WorkFolder?, held: Int = ConflictWarnings.heldWarnings) {
        self.folder = folder
        heldLimit = max(held, 1)
    }

    func append(_ warning: DumpWarning) {
        defer { met += 1 }
        guard let runs = runs ?? spill() else {
            held.append(warning)
            return
        }
        add(warning, at: met, to: runs)
    }

    /// Adds them to `log` in row order, those of one row as met. Throws when the disk failed them.
    func report(to log: WarningLog) throws(WorkFileError) {
        if let failure { throw failure }
        guard let runs else {
            for (_, warning) in held.enumerated().sorted(by: { a, b in
                (a.element.rowId ?? 0, a.offset) < (b.element.rowId ?? 0, b.offset)
            }) {
                log.add(warning)
            }
            return
        }
        let cursor = try runs.cursor()
        while cursor.next({ record in
            var record = record
            log.add(DumpWarning(from: &record))
        }) {}
        if let failure = cursor.failure { throw failure }
    }

    /// Past `heldLimit` (with a folder): the held warnings go to a sort on disk, and so will the rest.
    private func spill() -> SortedRuns? {
        guard met >= heldLimit, let folder else { return nil }
        let runs = SortedRuns(folder: folder, stem: "conflict-warnings")
        for (i, warning) in held.enumerated() { add(warning, at: i, to: runs) }
        held = []
        self.runs = runs
        return runs
    }

    private func add(_ warning: DumpWarning, at index: Int, to runs: SortedRuns) {
        guard failure == nil else { return }
        var key = SpillKey()
        key.append(warning.rowId ?? 0)
        key.append(UInt64(index))
        do throws(WorkFileError) { try runs.add(key: key) { warning.write(to: $0) } } catch { failure = error }
    }
}
