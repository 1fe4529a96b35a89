import BGeoReader
import Foundation

/// A record a `SortedSpool` can hold: where it sorts, and how it goes to and comes back from a tape.
protocol SpoolRecord: SendableMetatype {
    /// Where the record sorts: time first, then a number unique within its stream (a row id).
    var spoolKey: SpoolKey { get }
    func write(to sink: some TapeSink)
    init(from record: inout TapeRecordReader)
}

/// Time, then a sequence number: the order of a spooled stream.
struct SpoolKey: Comparable, Sendable {
    var time: Double
    var sequence: Int64

    @inline(__always) static func < (a: SpoolKey, b: SpoolKey) -> Bool {
        a.time != b.time ? a.time < b.time : a.sequence < b.sequence
    }

    var spillKey: SpillKey {
        var key = SpillKey()
        key.append(time)
        key.append(sequence)
        return key
    }
}

/// Sorts a stream that is nearly in order without holding it: records pass through a bounded
/// reorder window (a min-heap of `window` records); the smallest leaves to the sorted run on a
/// tape as soon as the window is full. A record that arrives after records that sort after it
/// have already left — an out-of-order stretch longer than the window — goes to a `SpillTable`
/// instead, which keeps it sorted on disk. Reading merges the run with the spill, so the result is
/// exactly the stream sorted, whatever its disorder; only the disorder costs time. Memory: the
/// window, the two buffers.
final class SortedSpool<Record: SpoolRecord> {
    private let folder: WorkFolder
    private let stem: String
    private let window: Int
    /// The window: in-order arrivals in a sorted run, the others in a heap of keys beside slots
    /// (sifting moves a key and an index, never a record whose strings would be retained and
    /// released per move).
    private var pending: RunQueue<SpoolKey, Record>
    private var run: TapeWriter?
    private var spill: SpillTable?
    private var lastOut: SpoolKey?
    private var failure: WorkFileError?
    /// The live run's feed, when an assembler follows the spool while it is filled.
    private let feed: LiveFeed?
    /// Records added.
    private(set) var count = 0
    /// Records that came too late for the window and were spilled.
    var spilled: Int { spill?.count ?? 0 }

    /// `window`: records held before the smallest must leave (the disorder absorbed without spilling).
    /// `feed`: published to as the run is written (abandoned if a record spills or a file fails).
    init(folder: WorkFolder, stem: String, window: Int = 16_384, feed: LiveFeed? = nil) {
        self.folder = folder
        self.feed = feed
        self.stem = stem
        self.window = max(1, window)
        pending = RunQueue(capacity: 1024)
    }

    /// Adds a record (any order). Errors are kept and thrown by `finish`.
    func add(_ record: consuming Record) {
        count += 1
        let key = record.spoolKey
        if let lastOut, key < lastOut {
            spillLate(record, key: key)
            return
        }
        pending.push(record, key: key)
        if pending.count > window { emitSmallest() }
    }

    private func emitSmallest() {
        let smallest = pending.pop()
        lastOut = smallest.key
        emit(smallest.value)
    }

    private func spillLate(_ record: Record, key: SpoolKey) {
        feed?.abandon()
        guard failure == nil else { return }
        do throws(WorkFileError) {
            if spill == nil { spill = try SpillTable(folder: folder, stem: stem + "-late") }
            try spill!.add(key: key.spillKey) { record.write(to: $0) }
        } catch {
            failure = error
        }
    }

    private func emit(_ record: Record) {
        guard failure == nil else { return }
        if run == nil {
            do throws(WorkFileError) { run = try TapeWriter(path: folder.newFile(stem, extension: "tape")) } catch {
                failure = error
                feed?.abandon()
                return
            }
            run!.feed = feed
            feed?.start(path: run!.path)
        }
        run!.append(record)
    }

    /// Drains the window; the spool becomes readable. Throws the first working-file error.
    func finish() throws(WorkFileError) -> SortedSource<Record> {
        // Whatever goes wrong, a follower must not wait for more.
        defer { feed?.abandon() }
        while !pending.isEmpty { emitSmallest() }
        if let failure { throw failure }
        try run?.finish()
        try spill?.seal()
        if spill == nil { feed?.finish() }
        return SortedSource(run: run.map { WorkFileLease(path: $0.path) }, spill: try spill?.handOver())
    }
}

/// A spool's records in sorted order: the run on its tape merged with the spilled ones. Can be
/// read any number of times (`reader` starts over), on any thread: each pass opens the files
/// for itself.
final class SortedSource<Record: SpoolRecord>: Sendable {
    private let run: WorkFileLease?
    private let spill: WorkFileLease?
    /// Set for a live source: the run of a spool still being filled, followed as it is written.
    private let feed: LiveFeed?

    fileprivate init(run: WorkFileLease?, spill: WorkFileLease?) {
        self.run = run
        self.spill = spill
        feed = nil
    }

    /// The live run of the spool made with `feed` (one pass; the spool's own source owns the file).
    init(following feed: LiveFeed) {
        run = nil
        spill = nil
        self.feed = feed
    }

    /// A fresh pass over the records (a live source waits for its records as they are written).
    func reader() throws(WorkFileError) -> Reader {
        if let feed {
            guard let path = feed.waitForPath() else { return try Reader(run: nil, spill: nil) }
            return try Reader(run: TapeReader(path: path, follow: feed), spill: nil)
        }
        return try Reader(run: run.map { file throws(WorkFileError) in try TapeReader(path: file.path) },
                          spill: spill.map { file throws(WorkFileError) in try SpillTable.cursor(of: file) })
    }

    /// One pass: a two-way merge of the sorted run and the sorted spill.
    final class Reader {
        private let run: TapeReader?
        private let spill: SpillTable.Cursor?
        private var runHead: Record?
        private var spillHead: Record?

        fileprivate init(run: TapeReader?, spill: SpillTable.Cursor?) throws(WorkFileError) {
            self.run = run
            self.spill = spill
            advanceRun()
            advanceSpill()
        }

        private func advanceRun() {
            runHead = nil
            if var record = run?.next() { runHead = Record(from: &record) }
        }

        private func advanceSpill() {
            spillHead = nil
            _ = spill?.next { record in
                var record = record
                spillHead = Record(from: &record)
            }
        }

        /// The next record in order, or nil at the end. (The heads are moved out, not copied.)
        @inline(__always) func next() -> Record? {
            if let runKey = runHead?.spoolKey {
                if let spillKey = spillHead?.spoolKey, spillKey < runKey {
                    let s = spillHead.take()
                    advanceSpill()
                    return s
                }
                let r = runHead.take()
                advanceRun()
                return r
            }
            if spillHead != nil {
                let s = spillHead.take()
                advanceSpill()
                return s
            }
            return nil
        }

        /// A read error met on the way (the pass ended early), if any.
        var failure: WorkFileError? { run?.failure ?? spill?.failure }
    }
}

extension TapeWriter {
    /// Appends one record: the value's tape form.
    @inline(__always) func append(_ value: some SpoolRecord) {
        beginRecord()
        value.write(to: self)
        endRecord()
    }
}
