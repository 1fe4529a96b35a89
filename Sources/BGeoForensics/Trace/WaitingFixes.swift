import BGeoReader
import Foundation

/// The assembler's resolved fixes not yet placed (its step 2): they wait in (time, rank) order
/// until no fix of their millisecond can still come, then each millisecond is settled and stored.
/// A millisecond whose fixes outgrow the window (`TraceWindows.heldFixes`: a stuck clock puts
/// every fix in one) waits on disk and is settled there, so memory stays bounded whatever the
/// dump's clock did.
struct WaitingFixes<Output: SpoolRecord> {
    typealias Pending = Unplaced<Output>
    private var queue = RunQueue<PendingKey, Pending>()
    private var batch: [Pending] = []
    /// Milliseconds on disk until they are settled, in time order; every later fix of one of
    /// them goes to its table.
    private var spilled: [(millisecond: Int64, table: SpillTable)] = []
    /// The count past which the first waiting millisecond goes to disk: `held`, or after a spill
    /// what was left waiting plus `held` (it shrinks back as those are placed).
    private var spillAt: Int
    /// Keys spilled so far: appended to each key, it keeps them unique whatever the ranks.
    private var spilledKeys: Int64 = 0
    /// Milliseconds settled on disk.
    private(set) var spilledMilliseconds = 0
    private let held: Int
    private let folder: WorkFolder

    init(held: Int, folder: WorkFolder) {
        self.held = held
        self.folder = folder
        spillAt = held
    }

    mutating func push(_ fix: consuming Pending) throws(WorkFileError) {
        if !spilled.isEmpty {
            let millisecond = Pending.millisecond(fix.time)
            if let waiting = spilled.first(where: { $0.millisecond == millisecond }) {
                try spill(fix, to: waiting.table)
                return
            }
        }
        let key = fix.key
        queue.push(fix, key: key)
        if queue.count > spillAt { try spillFirstMillisecond() }
    }

    /// Settles and stores, in trace order, every fix of each millisecond before `limit` (all of
    /// them without one): no fix of those can still come. A millisecond of a single fix (nearly
    /// all) is stored as it is; `settle` orders a batch in memory, `settleSpilled` one on disk
    /// (returning the tape of its fixes in order).
    mutating func release(before limit: Int64?, settle: ([Pending]) -> [Output],
                          settleSpilled: (SpilledMillisecond<Output>) throws(WorkFileError) -> String,
                          store: (inout Output) -> Void) throws(WorkFileError) {
        defer { if spillAt > held { spillAt = min(spillAt, queue.count + held) } }
        while true {
            if let first = spilled.first, queue.minKey.map({ first.millisecond <= Pending.millisecond($0.time) }) ?? true {
                if let limit, first.millisecond >= limit { return }
                spilled.removeFirst()
                let settled = try settleSpilled(SpilledMillisecond(table: first.table, folder: folder, held: held))
                defer { unlink(settled) }
                let reader = try TapeReader(path: settled)
                while var record = reader.next() {
                    var output = Output(from: &record)
                    store(&output)
                }
                if let failure = reader.failure { throw failure }
                continue
            }
            guard let top = queue.minKey else { return }
            let millisecond = Pending.millisecond(top.time)
            if let limit, millisecond >= limit { return }
            var fix = queue.pop().value
            guard let next = queue.minKey, Pending.millisecond(next.time) == millisecond else {
                store(&fix.output)
                continue
            }
            batch.append(fix)
            while let next = queue.minKey, Pending.millisecond(next.time) == millisecond { batch.append(queue.pop().value) }
            for var output in settle(batch) { store(&output) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    private mutating func spill(_ fix: Pending, to table: SpillTable) throws(WorkFileError) {
        var key = fix.rankedKey
        key.append(spilledKeys)
        spilledKeys += 1
        try table.add(key: key) { fix.write(to: $0) }
    }

    /// Moves the first waiting millisecond (the one whose fixes cannot be placed yet) to disk.
    private mutating func spillFirstMillisecond() throws(WorkFileError) {
        let millisecond = Pending.millisecond(queue.minKey!.time)
        let table = try SpillTable(folder: folder, stem: "millisecond")
        spilledMilliseconds += 1
        while let next = queue.minKey, Pending.millisecond(next.time) == millisecond {
            try spill(queue.pop().value, to: table)
        }
        spilled.insert((millisecond, table), at: spilled.partitionPoint { $0.millisecond < millisecond })
        spillAt = queue.count + held
    }
}
