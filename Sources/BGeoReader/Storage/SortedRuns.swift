import Foundation

/// Rows with order-preserving byte keys (`SpillKey`), added in any order and read back in key
/// order: an external merge sort on tapes in the private working folder. Rows are held up to
/// `budget` bytes, sorted and written as one run; reading merges the runs, at most `fanIn` at once
/// (more are first merged into longer ones). Unlike a `SpillTable`'s B-tree, rows added in random
/// order cost no random reads and writes: each row is written once per merge level. Keys must be
/// unique; like SQLite's BLOB order, keys compare by their bytes, a prefix first.
package final class SortedRuns {
    private let folder: WorkFolder
    private let stem: String
    private let budget: Int
    private let fanIn: Int
    /// The rows held: each key's bytes then its payload's, back to back.
    private var pool: [UInt8] = []
    private var rows: [(start: Int, keyCount: Int, end: Int)] = []
    private let payload = ByteSink()
    /// Sorted runs on disk, oldest first.
    private var runs: [String] = []
    /// Rows added.
    package private(set) var count = 0

    package init(folder: WorkFolder, stem: String, budget: Int = 4 << 20, fanIn: Int = 8) {
        self.folder = folder
        self.stem = stem
        self.budget = max(budget, 1)
        self.fanIn = max(fanIn, 2)
    }

    deinit { for run in runs { unlink(run) } }

    /// Adds one row; `encode` writes its payload.
    package func add(key: SpillKey, _ encode: (ByteSink) -> Void) throws(WorkFileError) {
        payload.reset()
        encode(payload)
        let start = pool.count
        pool.append(contentsOf: key.bytes)
        pool.append(contentsOf: payload.bytes)
        rows.append((start, key.bytes.count, pool.count))
        count += 1
        if pool.count >= budget { try writeRun() }
    }

    /// The rows in key order. Nothing is added afterwards.
    package func cursor() throws(WorkFileError) -> Cursor {
        if !rows.isEmpty || runs.isEmpty { try writeRun() }
        while runs.count > fanIn {
            let merged = try merge(Array(runs.prefix(fanIn)))
            runs.removeFirst(fanIn)
            runs.append(merged)
        }
        return try Cursor(runs: runs)
    }

    /// Sorts the rows held and writes them as a run.
    private func writeRun() throws(WorkFileError) {
        let out = try TapeWriter(path: folder.newFile(stem, extension: "run"))
        pool.withUnsafeBytes { bytes in
            rows.sort { a, b in
                SortedRuns.compare(UnsafeRawBufferPointer(rebasing: bytes[a.start..<(a.start + a.keyCount)]),
                                   UnsafeRawBufferPointer(rebasing: bytes[b.start..<(b.start + b.keyCount)])) < 0
            }
            for row in rows {
                SortedRuns.write(key: UnsafeRawBufferPointer(rebasing: bytes[row.start..<(row.start + row.keyCount)]),
                                 payload: UnsafeRawBufferPointer(rebasing: bytes[(row.start + row.keyCount)..<row.end]), to: out)
            }
        }
        try out.finish()
        runs.append(out.path)
        pool.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
    }

    /// Merges runs into one new run (the merged ones are removed).
    private func merge(_ paths: [String]) throws(WorkFileError) -> String {
        let cursor = try Cursor(runs: paths)
        let out = try TapeWriter(path: folder.newFile(stem, extension: "run"))
        while cursor.nextRecord({ key, payload in SortedRuns.write(key: key, payload: payload, to: out) }) {}
        if let failure = cursor.failure { throw failure }
        try out.finish()
        for path in paths { unlink(path) }
        return out.path
    }

    /// A run's record: the key, then the payload (`Cursor` reads them back).
    private static func write(key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, to out: TapeWriter) {
        out.beginRecord()
        out.put(bytes: key)
        out.put(bytes: payload)
        out.endRecord()
    }

    /// memcmp order, a prefix before the longer key (SQLite's BLOB order).
    package static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// Steps through the rows of several runs in key order.
    package final class Cursor {
        private let readers: [TapeReader]
        /// Each run's current row (nil once the run is done).
        private var heads: [(key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)?]
        package private(set) var failure: WorkFileError?

        fileprivate init(runs: [String]) throws(WorkFileError) {
            var readers: [TapeReader] = []
            for run in runs { readers.append(try TapeReader(path: run)) }
            self.readers = readers
            heads = Array(repeating: nil, count: readers.count)
            for i in readers.indices { advance(i) }
        }

        private func advance(_ i: Int) {
            guard var record = readers[i].next() else {
                heads[i] = nil
                if let error = readers[i].failure, failure == nil { failure = error }
                return
            }
            let key = record.bytes()
            heads[i] = (key, record.bytes())
        }

        /// Calls `body` with the next row's key and payload (valid during the call); false at the end.
        fileprivate func nextRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) -> Bool {
            guard failure == nil else { return false }
            var smallest: Int?
            for i in heads.indices {
                guard let head = heads[i] else { continue }
                if let s = smallest, SortedRuns.compare(head.key, heads[s]!.key) >= 0 { continue }
                smallest = i
            }
            guard let i = smallest else { return false }
            body(heads[i]!.key, heads[i]!.payload)
            advance(i)
            return failure == nil
        }

        /// Calls `body` with the next row's payload (valid during the call); false at the end.
        package func next(_ body: (TapeRecordReader) -> Void) -> Bool {
            nextRecord { _, payload in
                body(TapeRecordReader(base: payload.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: payload.count))
            }
        }
    }
}
