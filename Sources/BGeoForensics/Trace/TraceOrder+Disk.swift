import BGeoReader
import Foundation

extension TraceOrder {
    /// `arrangeTies` for a tie group too large to hold (a stuck clock): the very same merge sort —
    /// the same splits, the same merges, so the same order even where `Fix.tieOrder` is not
    /// transitive — with each subrange of at most `held` fixes sorted in memory and every merge
    /// above them made tape to tape. `path` holds the group's `count` fixes in gathering order;
    /// the result is the path of a new tape holding them in trace order.
    static func arrangeTies(onTape path: String, count: Int, held: Int, folder: WorkFolder) throws(WorkFileError) -> String {
        let input = try TapeReader(path: path)
        let leaf = max(held, 2)
        // `mergeSort` splits n fixes into the first n / 2 and the rest, at every level.
        func sorted(_ n: Int) throws(WorkFileError) -> String {
            if n <= leaf {
                var items: [Fix] = []
                items.reserveCapacity(n)
                for _ in 0..<n {
                    guard var record = input.next() else {
                        throw input.failure ?? WorkFileError(path: path, reason: "the tape ended before its \(count) fixes")
                    }
                    items.append(Fix(from: &record))
                }
                // A subrange is sorted as the whole sort sorts it: `mergeSort` splits it alike.
                arrangeTies(&items[items.startIndex..<items.endIndex])
                let out = try TapeWriter(path: folder.newFile("ties", extension: "tape"))
                for fix in items { out.append(fix) }
                try out.finish()
                return out.path
            }
            let left = try sorted(n / 2)
            defer { unlink(left) }
            let right = try sorted(n - n / 2)
            defer { unlink(right) }
            return try merge(left, right, folder: folder)
        }
        return try sorted(count)
    }

    /// `mergeSort`'s merge of two sorted tapes: the left fix unless the right one is strictly before it.
    private static func merge(_ leftPath: String, _ rightPath: String, folder: WorkFolder) throws(WorkFileError) -> String {
        let leftTape = try TapeReader(path: leftPath), rightTape = try TapeReader(path: rightPath)
        let out = try TapeWriter(path: folder.newFile("ties", extension: "tape"))
        func read(_ tape: TapeReader) -> Fix? {
            guard var record = tape.next() else { return nil }
            return Fix(from: &record)
        }
        var left = read(leftTape), right = read(rightTape)
        while let l = left, let r = right {
            if Fix.tieOrder(r, l) {
                out.append(r)
                right = read(rightTape)
            } else {
                out.append(l)
                left = read(leftTape)
            }
        }
        while let l = left { out.append(l); left = read(leftTape) }
        while let r = right { out.append(r); right = read(rightTape) }
        if let failure = leftTape.failure ?? rightTape.failure {
            unlink(out.path)
            throw failure
        }
        try out.finish()
        return out.path
    }

    /// Writes fixes given in (time, gathering) order in trace order, each run of one time arranged
    /// as `arrangeTies` would: a run of up to `held` fixes in memory, a longer one on disk.
    struct TieRuns {
        let out: TapeWriter
        let held: Int
        let folder: WorkFolder
        private var time: Double?
        private var run: [Fix] = []
        /// The run's first fixes, when it outgrew `held`.
        private var overflow: (tape: TapeWriter, count: Int)?

        init(out: TapeWriter, held: Int, folder: WorkFolder) {
            self.out = out
            self.held = max(held, 2)
            self.folder = folder
        }

        mutating func add(_ fix: Fix) throws(WorkFileError) {
            // `==` as the in-memory settle groups a run.
            if let time, !(time == fix.time) { try finish() }
            time = fix.time
            run.append(fix)
            if run.count >= held {
                if overflow == nil { overflow = (try TapeWriter(path: folder.newFile("ties", extension: "tape")), 0) }
                for fix in run { overflow!.tape.append(fix) }
                overflow!.count += run.count
                run.removeAll(keepingCapacity: true)
            }
        }

        /// Writes the current run.
        mutating func finish() throws(WorkFileError) {
            time = nil
            guard let (tape, count) = overflow else {
                if run.count > 1 { TraceOrder.arrangeTies(&run[run.startIndex..<run.endIndex]) }
                for fix in run { out.append(fix) }
                run.removeAll(keepingCapacity: true)
                return
            }
            overflow = nil
            for fix in run { tape.append(fix) }
            let total = count + run.count
            run.removeAll(keepingCapacity: true)
            try tape.finish()
            defer { unlink(tape.path) }
            let sorted = try TraceOrder.arrangeTies(onTape: tape.path, count: total, held: held, folder: folder)
            defer { unlink(sorted) }
            let reader = try TapeReader(path: sorted)
            while var record = reader.next() { out.append(Fix(from: &record)) }
            if let failure = reader.failure { throw failure }
        }
    }
}
