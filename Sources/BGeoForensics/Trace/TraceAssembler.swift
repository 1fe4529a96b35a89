import BGeoReader
import Foundation

/// Builds a trace from its two sorted streams of parsed copies (the queue's, the log's) in
/// bounded memory, exactly as the in-memory builders would:
///
/// 1. The streams are merged in time order. Copies of one uuid are held together while they
///    arrive (a `group`, closed `groupSeconds` after its first copy or when too many are open)
///    and resolved by the semantics into fixes.
/// 2. Fixes wait (`WaitingFixes`) until no fix of their millisecond can still come (the watermark:
///    the stream's time, the oldest open group), then each batch is settled (adjust lines folded,
///    ties ordered) and appended to the trace's tape; a millisecond too large to hold, on disk.
/// 3. A uuid whose copies fall into two groups (far apart in time, or a window overflowed) is
///    noticed by a fixed-size filter, confirmed by counting its groups (past
///    `TraceWindows.apartUUIDs` such uuids are kept as a filter: `ApartUUIDs`), and then built
///    again with every copy of such uuids gathered on disk first and resolved as one group.
final class TraceAssembler<Semantics: TraceSemantics> {
    typealias Pending = Unplaced<Semantics.Output>
    fileprivate let prototype: Semantics
    private let windows: TraceWindows
    private let folder: WorkFolder
    /// The semantics of the run that produced the trace (stats, warnings).
    fileprivate(set) var semantics: Semantics

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
        /// Milliseconds the last run settled on disk (too many fixes at one time to hold).
        let spilledMilliseconds: Int
        /// Whether the first run was the live pass (made while the spools were filled).
        var live = false
    }

    func assemble(queue: SortedSource<Semantics.QueueCopy>, log: SortedSource<Semantics.LogCopy>) throws(WorkFileError) -> Result {
        try assemble(queue: queue, log: log, first: nil)
    }

    /// `first`: the first pass already made (by a `LivePass`), with `semantics` as it left them.
    private func assemble(queue: SortedSource<Semantics.QueueCopy>, log: SortedSource<Semantics.LogCopy>,
                          first: Run?) throws(WorkFileError) -> Result {
        // One entry per further run: the uuids that run gathers apart on top of the earlier ones.
        var excluded: [ApartUUIDs] = []
        var attempt = 0
        while true {
            attempt += 1
            let run: Run
            if attempt == 1, let first {
                run = first
            } else {
                semantics = prototype
                let resolved = excluded.isEmpty ? nil : try resolveApart(excluded, queue: queue, log: log)
                run = try self.run(queue: queue, log: log, excluded: excluded, resolved: resolved)
            }
            // Suspects held by their text are confirmed against the groups' record; past the
            // limit they stand as a filter (its false alarms cost a uuid gathered apart, no more).
            let apart = run.suspects.isExact && !run.suspects.isEmpty
                ? ApartUUIDs(exact: try confirm(run.suspects.exact, leads: run.leads), limit: windows.apartUUIDs,
                             filterBits: apartFilterBits)
                : run.suspects
            unlink(run.leads)
            // Each further run only adds uuids to `excluded`; the cap is a guard, never reached.
            if apart.isEmpty || attempt >= 16 {
                return Result(tape: run.tape, count: run.count, runs: attempt, spilledMilliseconds: run.spilledMilliseconds,
                              live: first != nil)
            }
            unlink(run.tape)
            excluded.append(apart)
        }
    }

    /// The first pass made while the two spools are still being filled: on another thread, it
    /// follows their live runs (`SortedSpool(feed:)`), so assembling overlaps reading. The pass is
    /// kept only if both spools finished without spilling; otherwise (a record came later than
    /// the window, a working file failed) the trace is assembled from the finished spools as
    /// without it. Either way the result is the same.
    final class LivePass {
        private let feeds: (queue: LiveFeed, log: LiveFeed)
        /// The pass on its own thread; the assembler is the worker's until it hands it back.
        private let work: BackgroundWork<(run: Run?, assembler: TraceAssembler)>
        /// The assembler and the pass's exact run, once the pass is over.
        private var finished: (run: Run?, assembler: TraceAssembler)?

        /// `output`: published to as the pass writes its trace, for a consumer following it (the
        /// report's replay); it ends when the pass does, finished only if the pass wrote it all.
        init(_ assembler: sending TraceAssembler, queue: LiveFeed, log: LiveFeed, output: LiveFeed? = nil) {
            feeds = (queue, log)
            let queueSource = SortedSource<Semantics.QueueCopy>(following: queue)
            let logSource = SortedSource<Semantics.LogCopy>(following: log)
            work = BackgroundWork {
                assembler.semantics = assembler.prototype
                let run = try? assembler.run(queue: queueSource, log: logSource, excluded: [], resolved: nil, output: output)
                return (run, assembler)
            }
        }

        deinit {
            // Never left waiting for records, whatever path the caller took.
            feeds.queue.abandon()
            feeds.log.abandon()
        }

        /// Waits for the pass (the feeds are ended first, so it cannot wait for records that will
        /// not come); the assembler, and the pass's run if it is exact.
        private func finish() -> (run: Run?, assembler: TraceAssembler) {
            if let finished { return finished }
            feeds.queue.abandon()
            feeds.log.abandon()
            var (run, assembler) = work.take()
            if let exact = run, feeds.queue.wasAbandoned || feeds.log.wasAbandoned {
                unlink(exact.tape)
                unlink(exact.leads)
                run = nil
            }
            finished = (run, assembler)
            return (run, assembler)
        }

        /// The semantics of the assembly (stats, warnings), once `assemble` returned.
        var semantics: Semantics { finish().assembler.semantics }

        /// Stops the pass (the spools failed): waits for it and removes what it wrote.
        func cancel() {
            guard let run = finish().run else { return }
            unlink(run.tape)
            unlink(run.leads)
            finished?.run = nil
        }

        /// The trace from the finished spools: the live pass's run as its first pass when it is exact.
        func assemble(queue: SortedSource<Semantics.QueueCopy>, log: SortedSource<Semantics.LogCopy>) throws(WorkFileError) -> Result {
            let (run, assembler) = finish()
            finished?.run = nil
            return try assembler.assemble(queue: queue, log: log, first: run)
        }
    }

    /// The size of an `ApartUUIDs` filter: a quarter of the uuid filter's (its false alarms cost
    /// little, and one is kept per run).
    private var apartFilterBits: Int { max(windows.filterBits / 4, 1 << 10) }

    fileprivate struct Run {
        let tape: String
        let count: Int
        let leads: String
        let suspects: ApartUUIDs
        let spilledMilliseconds: Int
    }

    /// The groups open in one run, in the order they opened — which is also the order they close
    /// (by age, or the oldest when too many are open) — found by their uuid's 16-byte key (by its
    /// text when it is not canonical).
    private struct OpenGroups {
        /// What a closed group hands over.
        struct Closed {
            /// The uuid's filter hashes (also the run's record of the group).
            let hashes: (UInt64, UInt64)
            var copies: GroupCopies<Semantics.QueueCopy, Semantics.LogCopy>
        }

        /// Per group, in opening order (parallel arrays: checking the oldest's age reads a Double).
        private var opened: [Double] = []
        private var keys: [UUIDKey?] = []
        private var texts: [String?] = []
        private var hashes: [(UInt64, UInt64)] = []
        private var copies: [GroupCopies<Semantics.QueueCopy, Semantics.LogCopy>] = []
        private var head = 0
        /// The sequence number of the arrays' first element (the tables hold sequence numbers).
        private var base = 0
        private var byKey = UUIDKeyTable()
        /// Uuids that are not canonical, by their bytes (`ExactText`, as `byKey` and SQLite).
        private var byText: [ExactText: Int] = [:]

        var count: Int { opened.count - head }
        var oldestOpened: Double? { head < opened.count ? opened[head] : nil }

        /// The open group of `uuid`: its index, valid until the next `open` or `closeOldest`.
        /// Mutating only so that the run's nested functions call it on the struct in place: a
        /// non-mutating call from there copies it first (seven buffers retained and released per record).
        mutating func index(of uuid: String, key: UUIDKey?) -> Int? {
            if let key {
                guard let sequence = byKey.value(for: key) else { return nil }
                return sequence - base
            }
            guard let sequence = byText[ExactText(uuid)] else { return nil }
            return sequence - base
        }

        /// Opens a group for a uuid that has none; returns its index.
        mutating func open(_ uuid: String, key: UUIDKey?, hashes groupHashes: (UInt64, UInt64), opened time: Double) -> Int {
            let sequence = base + opened.count
            if let key { byKey.insert(key, value: sequence) } else { byText[ExactText(uuid)] = sequence }
            opened.append(time)
            keys.append(key)
            texts.append(key == nil ? uuid : nil)
            hashes.append(groupHashes)
            copies.append(GroupCopies())
            return opened.count - 1
        }

        mutating func add(queue copy: consuming Semantics.QueueCopy, at index: Int) { copies[index].add(queue: copy) }
        mutating func add(log copy: consuming Semantics.LogCopy, at index: Int) { copies[index].add(log: copy) }

        /// Removes and returns the oldest group (there must be one).
        mutating func closeOldest() -> Closed {
            var closed = Closed(hashes: hashes[head], copies: GroupCopies())
            swap(&closed.copies, &copies[head])
            if let key = keys[head] { byKey.remove(key) } else { byText[ExactText(texts[head].take()!)] = nil }
            head += 1
            if head > 4096, head * 2 > opened.count {
                opened.removeFirst(head)
                keys.removeFirst(head)
                texts.removeFirst(head)
                hashes.removeFirst(head)
                copies.removeFirst(head)
                base += head
                head = 0
            }
            return closed
        }
    }

    /// One pass over the merged streams; `output` follows the trace's tape as it is written.
    fileprivate func run(queue: SortedSource<Semantics.QueueCopy>, log: SortedSource<Semantics.LogCopy>, excluded: [ApartUUIDs],
                     resolved: SortedRuns?, output: LiveFeed? = nil) throws(WorkFileError) -> Run {
        // However the pass ends, a follower does not wait for more (nothing once it is finished).
        defer { output?.abandon() }
        // The semantics live in a local for the run: read through the class property, every call
        // of the per-record loop would copy them (their arrays retained and released) and check
        // the access for exclusivity.
        var semantics = self.semantics
        defer { self.semantics = semantics }
        let tape = try TapeWriter(path: folder.newFile("trace", extension: "tape"))
        if let output {
            tape.feed = output
            output.start(path: tape.path)
        }
        let leads = try TapeWriter(path: folder.newFile("groups", extension: "tape"))
        let filter = UUIDFilter(bits: windows.filterBits)
        var suspects = ApartUUIDs(limit: windows.apartUUIDs, filterBits: apartFilterBits)
        var groups = OpenGroups()
        var waiting = WaitingFixes<Semantics.Output>(held: windows.heldFixes, folder: folder)
        var count = 0
        var scratch: [Pending] = []
        var currentTime = -Double.infinity

        let queueReader = try queue.reader()
        let logReader = try log.reader()
        let apartCursor = try resolved?.cursor()
        // The heads' times apart, so choosing the next copy reads two Doubles, not two copies.
        var queueHead = queueReader.next()
        var logHead = logReader.next()
        var queueTime = queueHead?.spoolKey.time
        var logTime = logHead?.spoolKey.time
        var apartHead: Pending?
        func nextApart() {
            apartHead = nil
            _ = apartCursor?.next { record in
                var record = record
                apartHead = Pending(from: &record)
            }
        }
        nextApart()
        func closeOldest() throws(WorkFileError) {
            var group = groups.closeOldest()
            leads.beginRecord()
            leads.put(Int64(bitPattern: group.hashes.0))
            leads.put(Int64(bitPattern: group.hashes.1))
            leads.endRecord()
            semantics.resolve(&group.copies, into: &scratch)
            while let fix = scratch.popLast() { try waiting.push(fix) }
        }
        func store(_ output: inout Semantics.Output) {
            semantics.place(&output, at: count)
            tape.append(output)
            count += 1
        }
        func release(before limit: Int64?) throws(WorkFileError) {
            try waiting.release(before: limit, settle: { semantics.settle($0) },
                                settleSpilled: { (spilled) throws(WorkFileError) in try semantics.settle(spilled: spilled) },
                                store: store)
        }
        /// The index of the open group of `uuid`, opened now if it has none; nil when the uuid is
        /// excluded (its fixes come resolved from `resolved`).
        func group(of uuid: String) -> Int? {
            let key = UUIDKey(uuid)
            if let index = groups.index(of: uuid, key: key) { return index }
            let hashes = key.map(UUIDFilter.hashes(key:)) ?? UUIDFilter.hashes(text: uuid)
            if !excluded.isEmpty, excluded.contains(uuid, hashes: hashes) { return nil }
            if filter.insert(hashes: hashes) { suspects.insert(uuid, hashes: hashes) }
            return groups.open(uuid, key: key, hashes: hashes, opened: currentTime)
        }
        while true {
            var takeQueue: Bool
            if let q = queueTime {
                if let l = logTime { takeQueue = q <= l } else { takeQueue = true }
                // A stuck clock (thousands of fixes at one time) would otherwise bring every queue
                // copy before any line: once the window is half full, a line whose uuid waits in
                // an open group goes first, so each group closes whole and none is split in two.
                if takeQueue, q == logTime, groups.count > windows.openGroups / 2,
                   let uuid = semantics.groupUUID(of: logHead!), groups.index(of: uuid, key: UUIDKey(uuid)) != nil {
                    takeQueue = false
                }
                currentTime = takeQueue ? q : logTime!
            } else if let l = logTime {
                takeQueue = false
                currentTime = l
            } else {
                break
            }
            while let time = apartHead?.time, time <= currentTime {
                try waiting.push(apartHead.take()!)
                nextApart()
            }
            while let opened = groups.oldestOpened, opened < currentTime - windows.groupSeconds { try closeOldest() }
            var watermark = currentTime
            if let opened = groups.oldestOpened { watermark = min(watermark, opened) }
            if let time = apartHead?.time { watermark = min(watermark, time) }
            try release(before: Pending.millisecond(watermark))

            if takeQueue {
                let copy = queueHead.take()!
                queueHead = queueReader.next()
                queueTime = queueHead?.spoolKey.time
                if let index = group(of: semantics.uuid(of: copy)) { groups.add(queue: copy, at: index) }
            } else {
                let line = logHead.take()!
                logHead = logReader.next()
                logTime = logHead?.spoolKey.time
                if let uuid = semantics.groupUUID(of: line) {
                    if let index = group(of: uuid) { groups.add(log: line, at: index) }
                } else {
                    try waiting.push(semantics.standalone(line))
                }
            }
            if groups.count > windows.openGroups { try closeOldest() }
        }
        if let failure = queueReader.failure ?? logReader.failure ?? apartCursor?.failure { throw failure }
        while groups.count > 0 { try closeOldest() }
        while apartHead != nil {
            try waiting.push(apartHead.take()!)
            nextApart()
        }
        try release(before: nil)
        try tape.finish()
        output?.finish()
        try leads.finish()
        return Run(tape: tape.path, count: count, leads: leads.path, suspects: suspects,
                   spilledMilliseconds: waiting.spilledMilliseconds)
    }

    /// The suspects that really had copies in two groups or more (the filter's other answers
    /// were false alarms), from the run's record of every group's uuid hash.
    private func confirm(_ suspects: Set<ExactText>, leads: String) throws(WorkFileError) -> Set<ExactText> {
        var wanted: [UInt64: (second: UInt64, uuids: [String])] = [:]
        for uuid in suspects {
            let (a, b) = UUIDFilter.hashes(uuid.text)
            wanted[a, default: (b, [])].uuids.append(uuid.text)
        }
        var groupsSeen: [UInt64: Int] = [:]
        let reader = try TapeReader(path: leads)
        while var record = reader.next() {
            let a = UInt64(bitPattern: record.int64()), b = UInt64(bitPattern: record.int64())
            if let entry = wanted[a], entry.second == b { groupsSeen[a, default: 0] += 1 }
        }
        if let failure = reader.failure { throw failure }
        var apart: Set<ExactText> = []
        // A shared hash can only over-count: a uuid is never missed.
        for (hash, seen) in groupsSeen where seen > 1 { apart.formUnion(wanted[hash]!.uuids.map { ExactText($0) }) }
        return apart
    }

    /// Every copy of the `apart` uuids, gathered from both streams by uuid on disk and resolved
    /// as whole groups: the fixes, on disk in trace order, for the next run to merge in.
    private func resolveApart(_ apart: [ApartUUIDs], queue: SortedSource<Semantics.QueueCopy>,
                              log: SortedSource<Semantics.LogCopy>) throws(WorkFileError) -> SortedRuns {
        let copies = SortedRuns(folder: folder, stem: "apart-copies")
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
        let resolved = SortedRuns(folder: folder, stem: "apart-fixes")
        var group = GroupCopies<Semantics.QueueCopy, Semantics.LogCopy>()
        var groupUUID: String?
        var scratch: [Pending] = []
        func finishGroup() throws(WorkFileError) {
            guard groupUUID != nil else { return }
            scratch.removeAll(keepingCapacity: true)
            semantics.resolve(&group, into: &scratch)
            for pending in scratch { try resolved.add(key: pending.rankedKey) { pending.write(to: $0) } }
            group = GroupCopies()
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
            case .queue(let q): group.add(queue: q)
            case .log(let l): group.add(log: l)
            }
        }) {}
        if let failure = pendingError ?? cursor.failure { throw failure }
        try finishGroup()
        return resolved
    }
}

