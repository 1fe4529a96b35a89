import BGeoReader
import Foundation

/// The fixes of one millisecond that were too many to hold while they waited (a stuck clock puts
/// every fix in one): on disk in (time, rank) order — the order `TraceSemantics.settle` is given
/// a batch in — to be settled in passes, each holding at most `held` fixes.
struct SpilledMillisecond<Output: SpoolRecord> {
    let table: SpillTable
    let folder: WorkFolder
    /// Fixes a pass may hold at once (`TraceWindows.heldFixes`).
    let held: Int

    /// One pass over the fixes, in order.
    func forEach(_ body: (inout Unplaced<Output>) throws(WorkFileError) -> Void) throws(WorkFileError) {
        let cursor = try table.cursor()
        var fix: Unplaced<Output>?
        while cursor.next({ record in
            var record = record
            fix = Unplaced(from: &record)
        }) {
            try body(&fix!)
        }
        if let failure = cursor.failure { throw failure }
    }

    /// A new tape for the settled fixes (the caller stores them in trace order from it).
    func newTape() throws(WorkFileError) -> TapeWriter {
        try TapeWriter(path: folder.newFile("settled", extension: "tape"))
    }
}
