import Foundation

/// Builds a trace from its two sorted streams of parsed copies (the queue's, the log's) in
/// bounded memory, exactly as the in-memory builders would:
///
/// 1. The streams are merged in time order. Copies of one uuid are held together while they
///    arrive (a `group`, closed `groupSeconds` after its first copy or when too many are open)
///    and resolved by the semantics into fixes.
/// 2. Fixes wait in a min-heap until no fix of their millisecond can still come (the watermark:
///    the stream's time, the oldest open group), then each batch is settled (adjust lines folded,
///    ties ordered) and appended to the trace's tape.
/// 3. A uuid whose copies fall into two groups (far apart in time, or a window overflowed) is
///    noticed by a fixed-size filter, confirmed by counting its groups, and then built again with
///    every copy of such uuids gathered on disk first and resolved as one group.
final class TraceAssembler<Semantics: TraceSemantics> {
    typealias Pending = PendingFix<Semantics.Output>
    private let prototype: Semantics
    private let windows: TraceWindows
    private let folder: WorkFolder
    /// The semantics of the run that produced the trace (stats, warnings).
    private(set) var semantics: Semantics

    init(_ semantics: Semantics, windows: TraceWindows, folder: WorkFolder) {
        prototype = semantics
        self.semantics = semantics
        self.windows = windows
        self.folder = folder
    }

    /// The assembled trace: a tape of outputs in trace order and their count.
    struct Result {
        let tape: String
        let count: Int
        /// Runs it took (1 unless uuids had copies in two groups).
        let runs: Int
    }

    func assemble(queue: SortedSource<Semantics.QueueCopy>, log: SortedSource<Semantics.LogCopy>) throws(WorkFileError) -> Result {
        var excluded: Set<String> = []
        var attempt = 0
        while true {
            attempt += 1
            semantics = prototype
            let resolved = excluded.isEmpty ? nil : try resolveApart(excluded, queue: queue, log: log)
            let run = try self.run(queue: queue, log: log, excluded: excluded, resolved: resolved)
            let apart = run.suspects.isEmpty ? [] : try confirm(run.suspects, leads: run.leads)
            unlink(run.leads)
            // Each further run only adds uuids to `excluded`; the cap is a guard, never reached.
            if apart.isEmpty || attempt >= 16 {
                return Result(tape: run.tape, count: run.count, runs: attempt)
            }
            unlink(run.tape)
            excluded.formUnion(apart)
        }
    }

    private struct Run {
        let tape: String
        let count: Int
        let leads: String
        let suspects: Set<String>
    }

    private struct OpenGroup {
        var queue: [Semantics.QueueCopy] = []
        var log: [Semantics.LogCopy] = []
    }

    /// One pass over the merged streams.
    private func run(queue: SortedSource<Semantics.QueueCopy>, log: SortedSource<Semantics.LogCopy>, excluded: Set<String>,
                     resolved: SpillTable?) throws(WorkFileError) -> Run {
        let tape = try TapeWriter(path: folder.newFile("trace", extension: "tape"))
        let leads = try TapeWriter(path: folder.newFile("groups", extension: "tape"))
        var filter = UUIDFilter(bits: windows.filterBits)
        var suspects: Set<String> = []
        var groups: [String: OpenGroup] = [:]
        var order: [(uuid: String, opened: Double)] = []
        var head = 0
        var heap = MinHeap<PendingOrder<Semantics.Output>>()
        var count = 0
        var scratch: [Pending] = []
        var currentTime = -Double.infinity

        let queueReader = try queue.reader()
        let logReader = try log.reader()
        let apartCursor = try resolved?.cursor()
        var queueHead = queueReader.next()
        var logHead = logReader.next()
        var apartHead: Pending?
        func nextApart() {
            apartHead = nil
            _ = apartCursor?.next { record in
                var record = record
                apartHead = Pending(from: &record)
            }
        }
        nextApart()

        func close(_ uuid: String) {
            guard let group = groups.removeValue(forKey: uuid) else { return }
            let (a, b) = UUIDFilter.hashes(uuid)
            leads.beginRecord()
            leads.put(Int64(bitPattern: a))
            leads.put(Int64(bitPattern: b))
            leads.endRecord()
            scratch.removeAll(keepingCapacity: true)
            semantics.resolve(queue: group.queue, log: group.log, into: &scratch)
            for pending in scratch { heap.push(pending) }
        }
        func closeOldest() {
            close(order[head].uuid)
            head += 1
            if head > 4096, head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
        func flush(_ batch: [Pending]) {
            guard !batch.isEmpty else { return }
            for var output in semantics.settle(batch) {
                semantics.place(&output, at: count)
                tape.beginRecord()
                output.write(to: tape)
                tape.endRecord()
                count += 1
            }
        }
        /// Stores every pending fix of a millisecond before `watermark`'s: no fix of those can still come.
        func release(before watermark: Double) {
            let limit = Pending.millisecond(watermark)
            guard let top = heap.top, top.millisecond < limit else { return }
            var batch: [Pending] = []
            while let top = heap.top, top.millisecond < limit { batch.append(heap.pop()) }
            flush(batch)
        }
        func open(_ uuid: String) -> Bool {
            guard !excluded.contains(uuid) else { return false }
            if groups[uuid] == nil {
                if filter.insert(uuid) { suspects.insert(uuid) }
                groups[uuid] = OpenGroup()
                order.append((uuid, currentTime))
            }
            return true
        }
        while true {
            let takeQueue: Bool
            switch (queueHead, logHead) {
            case (nil, nil): takeQueue = false
            case (.some, nil): takeQueue = true
            case (nil, .some): takeQueue = false
            case let (q?, l?): takeQueue = q.spoolKey.time <= l.spoolKey.time
            }
            guard queueHead != nil || logHead != nil else { break }
            currentTime = takeQueue ? queueHead!.spoolKey.time : logHead!.spoolKey.time
            while let apart = apartHead, apart.time <= currentTime {
                heap.push(apart)
                nextApart()
            }
            while head < order.count, order[head].opened < currentTime - windows.groupSeconds { closeOldest() }
            var watermark = currentTime
            if head < order.count { watermark = min(watermark, order[head].opened) }
            if let apart = apartHead { watermark = min(watermark, apart.time) }
            release(before: watermark)

            if takeQueue {
                let copy = queueHead!
                queueHead = queueReader.next()
                let uuid = semantics.uuid(of: copy)
                if open(uuid) { groups[uuid]!.queue.append(copy) }
            } else {
                let line = logHead!
                logHead = logReader.next()
                if let uuid = semantics.groupUUID(of: line) {
                    if open(uuid) { groups[uuid]!.log.append(line) }
                } else {
                    heap.push(semantics.standalone(line))
                }
            }
            if groups.count > windows.openGroups { closeOldest() }
        }
        if let failure = queueReader.failure ?? logReader.failure ?? apartCursor?.failure { throw failure }
        while head < order.count { closeOldest() }
        while let apart = apartHead {
            heap.push(apart)
            nextApart()
        }
        var rest: [Pending] = []
        while heap.top != nil { rest.append(heap.pop()) }
        flush(rest)
        try tape.finish()
        try leads.finish()
        return Run(tape: tape.path, count: count, leads: leads.path, suspects: suspects)
    }

    /// The suspects that really had copies in two groups or more (the filter's other answers
    /// were false alarms), from the run's record of every group's uuid hash.
    private func confirm(_ suspects: Set<String>, leads: String) throws(WorkFileError) -> Set<String> {
        var wanted: [UInt64: (second: UInt64, uuids: [String])] = [:]
        for uuid in suspects {
            let (a, b) = UUIDFilter.hashes(uuid)
            wanted[a, default: (b, [])].uuids.append(uuid)
        }
        var groupsSeen: [UInt64: Int] = [:]
        let reader = try TapeReader(path: leads)
        while var record = reader.next() {
            let a = UInt64(bitPattern: record.int64()), b = UInt64(bitPattern: record.int64())
            if let entry = wanted[a], entry.second == b { groupsSeen[a, default: 0] += 1 }
        }
        if let failure = reader.failure { throw failure }
        var apart: Set<String> = []
        // A shared hash can only over-count: a uuid is never missed.
        for (hash, seen) in groupsSeen where seen > 1 { apart.formUnion(wanted[hash]!.uuids) }
        return apart
    }

    /// Every copy of the `apart` uuids, gathered from both streams by uuid on disk and resolved
    /// as whole groups: the fixes, on disk in trace order, for the next run to merge in.
    private func resolveApart(_ apart: Set<String>, queue: SortedSource<Semantics.QueueCopy>,
                              log: SortedSource<Semantics.LogCopy>) throws(WorkFileError) -> SpillTable {
        let copies = try SpillTable(folder: folder, stem: "apart-copies")
        func key(_ uuid: String, stream: UInt8, id: Int64) -> SpillKey {
            var key = SpillKey()
            var text = uuid
            key.append(UInt64(text.utf8.count))
            text.withUTF8 { key.append(bytes: $0) }
            key.append(UInt64(stream))
            key.append(id)
            return key
        }
        let queueReader = try queue.reader()
        while let copy = queueReader.next() {
            let uuid = semantics.uuid(of: copy)
            if apart.contains(uuid) {
                try copies.add(key: key(uuid, stream: 0, id: copy.spoolKey.sequence)) { sink in
                    sink.put(UInt8(0))
                    copy.write(to: sink)
                }
            }
        }
        let logReader = try log.reader()
        while let line = logReader.next() {
            if let uuid = semantics.groupUUID(of: line), apart.contains(uuid) {
                try copies.add(key: key(uuid, stream: 1, id: line.spoolKey.sequence)) { sink in
                    sink.put(UInt8(1))
                    line.write(to: sink)
                }
            }
        }
        if let failure = queueReader.failure ?? logReader.failure { throw failure }
        let resolved = try SpillTable(folder: folder, stem: "apart-fixes")
        var group = OpenGroup()
        var groupUUID: String?
        var scratch: [Pending] = []
        func finishGroup() throws(WorkFileError) {
            guard groupUUID != nil else { return }
            scratch.removeAll(keepingCapacity: true)
            semantics.resolve(queue: group.queue, log: group.log, into: &scratch)
            for pending in scratch { try resolved.add(key: pending.rankedKey) { pending.write(to: $0) } }
            group = OpenGroup()
        }
        let cursor = try copies.cursor()
        var pendingError: WorkFileError?
        while cursor.next({ record in
            var record = record
            let copy: AssemblyCopy<Semantics.QueueCopy, Semantics.LogCopy> = record.uint8() == 0
                ? .queue(Semantics.QueueCopy(from: &record)) : .log(Semantics.LogCopy(from: &record))
            let uuid = semantics.uuid(ofAny: copy)
            if uuid != groupUUID {
                do throws(WorkFileError) { try finishGroup() } catch { pendingError = error }
                groupUUID = uuid
            }
            switch copy {
            case .queue(let q): group.queue.append(q)
            case .log(let l): group.log.append(l)
            }
        }) {}
        if let failure = pendingError ?? cursor.failure { throw failure }
        try finishGroup()
        try resolved.seal()
        return resolved
    }
}

/// Pending fixes by (time, rank).
enum PendingOrder<Output>: HeapOrder {
    @inline(__always) static func before(_ a: PendingFix<Output>, _ b: PendingFix<Output>) -> Bool { PendingFix.before(a, b) }
}
