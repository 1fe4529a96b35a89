import Foundation

/// A table read on second connections in chunks of its row ids, each chunk's rows decoded into
/// items that the caller takes in row order while the connections read on (`ScanRunner`'s **in
/// order** rule). Workers take the chunks in turn (worker `w` of `n` reads chunks `w`, `w + n`,
/// …), each at most a few batches ahead of the caller, so every core stays busy and memory flat.
///
/// A chunk stands for its rows up to the first row that warned or met damage: that row's items
/// are dropped and the read stops there; the caller then reads the rows after the last one stood
/// for itself (`Rest.readOn`), exactly as its single pass would have read them. So the caller's
/// handling of the items and of the rows it reads is one pass: the same rows, the same order, the
/// same warnings (the workers' own are dropped).
///
/// Public, with `@inlinable` item loops, only for speed (see `PipedSink`).
public final class PipedRead<Item: Sendable> {
    /// What is left for the caller after the items.
    public enum Rest: Equatable, Sendable {
        /// The chunks stood for every row.
        case none
        /// The caller reads the rows after this row id itself (nil: every row).
        case readOn(after: Int64?)
    }

    private struct Worker {
        let channel: BatchChannel<PipedBatch<Item>>
        let work: ApartRead<Void>
    }

    /// Batches waiting for the caller before a worker waits too: memory stays flat.
    static var pendingBatches: Int { 8 }

    private let workers: [Worker]
    private let chunks: Int
    private var finished = false

    private init(workers: [Worker], chunks: Int) {
        self.workers = workers
        self.chunks = chunks
    }

    /// Starts `workers` threads and connections reading `chunks` (row-id ranges in reading
    /// order), sending batches of about `batchItems` items; nil when there are no chunks, this
    /// process reads on one thread, or a connection does not open.
    static func start(_ dump: Dump, chunks: [Range<Int64>], workers count: Int, batchItems: Int,
                      _ read: @escaping @Sendable (Dump, Range<Int64>, PipedSink<Item>) -> Void) -> PipedRead? {
        guard !chunks.isEmpty, count >= 1 else { return nil }
        var workers: [Worker] = []
        for index in 0..<min(count, chunks.count) {
            // Damage stops a chunk (the caller's salvage then reads on, as its single pass would).
            guard let reader = ScanRunner.secondConnection(dump, stopsAtDamage: true) else {
                PipedRead(workers: workers, chunks: chunks.count).discard()
                return nil
            }
            let channel = BatchChannel<PipedBatch<Item>>(capacity: PipedRead<Item>.pendingBatches)
            let mine = Array(stride(from: index, to: chunks.count, by: count).map { chunks[$0] })
            let work = ApartRead(reader: reader) { reader in
                let sink = PipedSink(reader: reader, channel: channel, batchItems: batchItems)
                for chunk in mine {
                    sink.startChunk()
                    read(reader, chunk, sink)
                    guard sink.endChunk() else { break }
                }
                channel.finish()
            }
            workers.append(Worker(channel: channel, work: work))
        }
        return PipedRead(workers: workers, chunks: chunks.count)
    }

    /// Hands `body` every item the chunks stood for, in row order, and says what the caller reads
    /// itself. Nothing is taken when `dump`'s own connection met damage before (its salvage
    /// decides what the rows are): the caller then reads every row.
    @inlinable
    public func forEach(standingInFor dump: Dump, _ body: (Item) -> Void) -> Rest {
        while let batch = nextBatch(standingInFor: dump) {
            for item in batch.items { body(item) }
        }
        return rest
    }

    /// `forEach` by batch: `body` gets each batch's items of whole rows and how many rows gave them.
    @inlinable
    public func forEachBatch(standingInFor dump: Dump, _ body: (_ items: [Item], _ rows: Int) -> Void) -> Rest {
        while let batch = nextBatch(standingInFor: dump) { body(batch.items, batch.rows) }
        return rest
    }

    /// The chunk being taken, the last row id stood for, and what is left once the batches end.
    private var chunk = 0
    private var lastClean: Int64?
    private var started = false
    /// A chunk ended early: after its batch, the read stops.
    private var stopsAfterBatch = false
    @usableFromInline private(set) var rest = Rest.none

    /// The next batch in row order; nil at the end, `rest` then saying what the caller reads
    /// itself. Per batch, so out of line.
    @usableFromInline
    func nextBatch(standingInFor dump: Dump) -> PipedBatch<Item>? {
        guard !finished else { return nil }
        if !started {
            started = true
            guard !dump.scanInterrupted else { return finish(.readOn(after: nil)) }
        }
        if stopsAfterBatch { return finish(.readOn(after: lastClean)) }
        guard chunk < chunks else { return finish(.none) }
        // A worker that ended without telling how its chunk ended stands for nothing more.
        guard let batch = workers[chunk % workers.count].channel.receive()?.first else { return finish(.readOn(after: lastClean)) }
        if let end = batch.end {
            if let clean = end.lastClean { lastClean = clean }
            chunk += 1
            stopsAfterBatch = !end.complete
        }
        return batch
    }

    private func finish(_ rest: Rest) -> PipedBatch<Item>? {
        self.rest = rest
        discard()
        return nil
    }

    /// Stops the workers and waits for their threads (no thread outlives the read).
    private func discard() {
        finished = true
        for worker in workers { worker.channel.close() }
        for worker in workers { _ = worker.work.finish() }
    }

    deinit {
        if !finished { discard() }
    }
}

/// One batch a worker of a `PipedRead` sends: the items of whole rows, how many rows gave them,
/// and, in a chunk's last batch, how the chunk ended.
@usableFromInline
struct PipedBatch<Item: Sendable>: Sendable {
    @usableFromInline var items: [Item]
    @usableFromInline var rows: Int
    @usableFromInline var end: PipedChunkEnd?
}

/// How one chunk of a `PipedRead` ended.
@usableFromInline
struct PipedChunkEnd: Sendable {
    /// Every row of the chunk was read and stood for.
    var complete: Bool
    /// The last row id of the chunk stood for.
    var lastClean: Int64?
}

/// The rule of a `PipedRead` worker's rows, apart from the items (so it is not generic): a row is
/// stood for unless its connection warned or met damage while reading it; the first such row
/// stops the worker, and its items are dropped. Also says when a batch is full.
@usableFromInline
final class PipedRows {
    /// What the sink does on a row's first call.
    @usableFromInline
    enum Turn {
        case go
        /// The batch is full: send it first.
        case send
        /// The row before warned: drop the batch's items from this index, and stop.
        case stop(dropFrom: Int)
    }

    /// Bytes of text (as the read weighs its items) after which a batch goes early.
    static let batchBytes = 1 << 20
    /// Bytes from which a batch is sent alone (`BatchChannel.send(_:alone:)`).
    static let heavyBatchBytes = 8 << 20

    private let reader: Dump
    /// Items after which a batch is full (at least one).
    let batchItems: Int
    @usableFromInline var batchBytes = 0
    /// Where the current row's items start in the batch.
    private var rowStart = 0
    private var currentRow: Int64?
    /// Rows of the batch stood for that gave items.
    private(set) var rowsInBatch = 0
    private(set) var lastClean: Int64?
    private(set) var stopped = false

    init(reader: Dump, batchItems: Int) {
        self.reader = reader
        self.batchItems = max(1, batchItems)
    }

    /// The statement yielded `rowId` while the batch holds `items`: closes the row before it.
    @usableFromInline
    func begin(row rowId: Int64, items: Int) -> Turn {
        if let dropFrom = closeRow(items: items) { return .stop(dropFrom: dropFrom) }
        if stopped { return .stop(dropFrom: items) }
        currentRow = rowId
        if items >= batchItems || batchBytes >= PipedRows.batchBytes {
            rowStart = 0
            return .send
        }
        rowStart = items
        return .go
    }

    /// Closes the current row, the batch holding `items`: the index its items start at when it
    /// is not stood for (the warning is the caller's to give, when it reads that row itself),
    /// else nil. A row stood for counts in the batch's rows only when it gave items (a row the
    /// query filtered out gives none, and a listing counts the rows it writes).
    func closeRow(items: Int) -> Int? {
        guard !stopped else { return nil }
        guard reader.warnings.count == 0, !reader.scanInterrupted else {
            stopped = true
            return rowStart
        }
        if let currentRow {
            lastClean = currentRow
            if items > rowStart { rowsInBatch += 1 }
            self.currentRow = nil
        }
        return nil
    }

    /// A new chunk starts (its rows are stood for apart from the chunk before).
    func startChunk() {
        currentRow = nil
        lastClean = nil
        rowStart = 0
    }

    /// A batch was sent (false: the caller no longer takes items).
    func sent(_ accepted: Bool) {
        batchBytes = 0
        rowsInBatch = 0
        if !accepted { stopped = true }
    }
}

/// Where a worker of a `PipedRead` puts its items, on the worker's thread. The read calls
/// `begin(row:)` first with each row id its statement yields (as `continuing`), then `emit` (or
/// `append`) for the row's items; a row that made its connection warn, or the damage that ended
/// the read, ends the chunk there, without that row's items, and the worker stops (`PipedRows`).
///
/// Public and `@inlinable` only for speed: the sink is generic over the caller's item, and an
/// unspecialised generic call per row across the module boundary (`package` declarations are
/// not inlined into other modules) looked up the item's metadata and copied each item through
/// its value witness: a fifth of a worker's time, measured.
public final class PipedSink<Item: Sendable> {
    @usableFromInline let rows: PipedRows
    private let channel: BatchChannel<PipedBatch<Item>>
    @usableFromInline var items: [Item] = []

    init(reader: Dump, channel: BatchChannel<PipedBatch<Item>>, batchItems: Int) {
        rows = PipedRows(reader: reader, batchItems: batchItems)
        self.channel = channel
        items.reserveCapacity(rows.batchItems)
    }

    /// The statement yielded `rowId`: closes the row before it. False ends the read (that row
    /// warned, or the caller no longer takes items).
    @inlinable
    public func begin(row rowId: Int64) -> Bool {
        switch rows.begin(row: rowId, items: items.count) {
        case .go:
            return true
        case .send:
            return send()
        case .stop(let dropFrom):
            items.removeSubrange(dropFrom...)
            return false
        }
    }

    /// An item of the current row, weighing about `bytes` (its texts).
    @inlinable
    public func emit(_ item: consuming Item, bytes: Int = 0) {
        items.append(item)
        rows.batchBytes += bytes
    }

    /// Lets `body` append the current row's items in place (a listing's bytes); whatever it
    /// leaves there is the row's.
    @inlinable
    public func append<R>(_ body: (inout [Item]) -> R) -> R {
        body(&items)
    }

    func startChunk() {
        rows.startChunk()
    }

    /// After a chunk's read: closes its last row and sends what is left (the rows stood for, also
    /// when the chunk stopped early) with how the chunk ended. False: the worker stops.
    func endChunk() -> Bool {
        if let dropFrom = rows.closeRow(items: items.count) { items.removeSubrange(dropFrom...) }
        let complete = !rows.stopped
        return send(end: PipedChunkEnd(complete: complete, lastClean: rows.lastClean)) && complete
    }

    /// Sends the batch (per batch, so out of line). A batch of 8 MB or more (its items' own
    /// bytes, or the texts they weigh) waits for the caller to take every batch before it, so a
    /// worker holds at most one row of many megabytes, not eight.
    @usableFromInline
    func send(end: PipedChunkEnd? = nil) -> Bool {
        let heavy = max(items.count * MemoryLayout<Item>.stride, rows.batchBytes) >= PipedRows.heavyBatchBytes
        let accepted = channel.send([PipedBatch(items: items, rows: rows.rowsInBatch, end: end)], alone: heavy)
        items = []
        items.reserveCapacity(rows.batchItems)
        rows.sent(accepted)
        return accepted
    }
}
