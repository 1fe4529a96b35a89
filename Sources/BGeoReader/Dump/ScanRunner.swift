import Foundation

/// The one place a command's reads of a dump are spread over connections and threads, and the
/// one place the rules live that decide when a read done apart stands for the read done in turn.
/// Every rule keeps the output exactly a single sequential pass's: the same rows, the same
/// values, the same warnings in the same order. The rules:
///
/// - **beside** (`beside`): a read of an independent table on a second connection and thread;
///   its warnings follow those the caller's connection gave meanwhile, the order of reading it
///   after. With no second connection it is read in turn, when its value is asked.
/// - **as if first** (`ApartRead.valueAsIfFirst`, `readAsIfFirst`): a read whose warnings must
///   stand where a read made first would have put them; damage it found is carried over.
/// - **clean stand-in** (`ApartRead.cleanValue`, `BesideRead.takeCleanFact`): a read apart stands
///   for the caller's own reading of the same rows only when it read them to the end without a
///   warning or damage, and the caller's own pass is undamaged so far; otherwise the caller reads
///   the rows itself, as it would have without the read apart.
/// - **in order** (`piped` → `PipedRead`): a table read in chunks of row ids on second
///   connections, each decoding its rows into items the caller takes in row order while the
///   connections read on; the chunks stand for their rows up to the first row that warned or met
///   damage, and the caller reads the rows after the last one stood for itself, as its single
///   pass would have.
/// - **two parts** (`inTwoParts`): a table read in two parts at once is kept only when neither
///   part met damage and together they are the whole table; their warnings then join, the first
///   part's before the later part's. Otherwise the caller reads the table again in one pass.
///
/// Threads themselves are started by `BackgroundWork`; this process reads on one thread when
/// `ScanThreading` says so (fleet's workers).
package enum ScanRunner {
    /// A second connection to `dump`'s copy for a read on another thread; nil when this process
    /// reads on one thread or none opens. `stopsAtDamage` makes it stop at a damaged page instead
    /// of salvaging (a part of a split read, which is then redone in one piece).
    static func secondConnection(_ dump: Dump, stopsAtDamage: Bool = false) -> sending Dump? {
        guard ScanThreading.allowsSecondThread, let reader = try? dump.parallelReader() else { return nil }
        reader.salvagesOnDamage = !stopsAtDamage
        return reader
    }

    /// Starts `read` on a second connection and thread; nil when there is none (the caller then
    /// reads on its own connection, in its own way).
    package static func apart<Value>(_ dump: Dump, stopsAtDamage: Bool = false,
                                     _ read: sending @escaping (Dump) -> Value) -> ApartRead<Value>? {
        guard let reader = secondConnection(dump, stopsAtDamage: stopsAtDamage) else { return nil }
        return ApartRead(reader: reader, read)
    }

    /// Starts reading `chunks` of a table's row ids (in reading order) on `workers` connections
    /// and threads of their own, which take the chunks in turn (the **in order** rule): `read`
    /// reads one chunk, calling the sink's `begin(row:)` with each row id first and `emit` (or
    /// `append`) with the row's items, sent in batches of about `batchItems`. Nil when this
    /// process reads on one thread or a connection does not open.
    package static func piped<Item: Sendable>(_ dump: Dump, chunks: [Range<Int64>], workers: Int = 2, batchItems: Int = 2048,
                                              _ read: @escaping @Sendable (Dump, Range<Int64>, PipedSink<Item>) -> Void) -> PipedRead<Item>? {
        PipedRead.start(dump, chunks: chunks, workers: workers, batchItems: batchItems, read)
    }

    /// Starts `read` beside the caller's reading (the **beside** rule). `read` is `@Sendable`
    /// because it may run either apart or in turn (a `sending` closure could be used only once).
    package static func beside<Value>(_ dump: Dump, _ read: @escaping @Sendable (Dump) -> Value) -> BesideRead<Value> {
        if let reader = secondConnection(dump) { return BesideRead(dump, apart: ApartRead(reader: reader, read)) }
        return BesideRead(dump, inTurn: read)
    }

    /// Runs `read` on `dump`'s connection now, with the warnings it gives moved to `mark` (a past
    /// `warnings.count`): a read done after others that must read as if done before them.
    package static func readAsIfFirst(_ dump: Dump, before mark: Int, _ read: () -> Void) {
        let since = dump.warnings.count
        read()
        dump.warnings.moveWarnings(since: since, to: mark)
    }

    /// The **as if first** rule for a read folded into a later scan (`LogSecrets`: the secrets
    /// learned on the summary's log count, not on a scan of their own, made first): the warnings
    /// found since `mark` that the folded read would have made (`madeByFoldedRead`) move to
    /// `mark`, in their order, where that read would have put them.
    package static func placeAsIfFirst(_ dump: Dump, since mark: Int, madeByFoldedRead: (DumpWarning) -> Bool) {
        let moved = WarningLog()
        // A tape that cannot be read back leaves the warnings where they are (their order only).
        try? dump.warnings.forEachKept(from: mark) { warning in if madeByFoldedRead(warning) { moved.add(warning) } }
        dump.warnings.place(moved, at: mark)
    }

    /// The same rule for a read folded into a scan on another connection whose warnings are in
    /// `dump`'s log already (`PendingRedactor.fold`): `made`, the folded read's warnings in that
    /// scan's order, move to `mark` in that order (one found earlier by `dump`'s own reads too
    /// is moved, not repeated).
    package static func placeAsIfFirst(_ dump: Dump, _ made: [DumpWarning], at mark: Int) {
        let moved = WarningLog()
        for warning in made { moved.add(warning) }
        dump.warnings.place(moved, at: mark)
    }

    /// Reads a table in two parts at once (the **two parts** rule): `later` on a second
    /// connection and thread, `first` on a third on this thread, while `dump`'s own connection
    /// stays free for the caller. The parts, when they stand for one pass (`whole` holds of them
    /// and neither met damage): their warnings are then `dump`'s. Nil otherwise, or with no
    /// second thread: the caller reads the table in one pass.
    package static func inTwoParts<Part>(_ dump: Dump, first: (Dump) -> Part, later: sending @escaping (Dump) -> Part,
                                 whole: (Part, Part) -> Bool) -> (first: Part, later: Part)? {
        guard ScanThreading.allowsSecondThread, let firstReader = try? dump.parallelReader(),
              let laterRead = apart(dump, stopsAtDamage: true, later) else { return nil }
        firstReader.salvagesOnDamage = false
        let firstPart = first(firstReader)
        let (laterPart, laterReader) = laterRead.finish()
        guard !firstReader.scanInterrupted, !laterReader.scanInterrupted, whole(firstPart, laterPart) else { return nil }
        dump.warnings.add(contentsOf: firstReader.warnings)
        dump.warnings.add(contentsOf: laterReader.warnings)
        return (firstPart, laterPart)
    }
}

/// A read running on a second connection to the same private copy, on its own thread. The
/// connection is the worker's until the read ends; each way of taking the value is one of
/// `ScanRunner`'s rules, so nothing about the second read is shared while it runs — Swift 6
/// checks that the read captures nothing the caller still uses.
package final class ApartRead<Value>: Sendable {
    private let work: BackgroundWork<(value: Value, reader: Dump)>

    init(reader: sending Dump, _ read: sending @escaping (Dump) -> Value) {
        work = BackgroundWork { (read(reader), reader) }
    }

    /// The **beside** rule: waits, appends the read's warnings to `dump`'s, hands the value over.
    package func value(after dump: Dump) -> sending Value {
        let (value, reader) = work.take()
        dump.warnings.add(contentsOf: reader.warnings)
        return value
    }

    /// The **as if first** rule: waits, places the read's warnings at `mark` in `dump`'s log, and
    /// carries over what it found of damage (an interrupted scan, a salvage already announced),
    /// so `dump`'s connection salvages such a table silently later, as a second scan would.
    func valueAsIfFirst(into dump: Dump, at mark: Int) -> sending Value {
        let (value, reader) = work.take()
        dump.warnings.place(reader.warnings, at: mark)
        if reader.scanInterrupted { dump.scanInterrupted = true }
        for (table, salvage) in reader.salvagedTables where salvage?.announced == true { dump.salvageAnnounced.insert(table) }
        return value
    }

    /// The **clean stand-in** rule: the value when the read ended without a warning or damage
    /// and `dump`'s own pass is undamaged so far; nil otherwise (the value is dropped).
    package func cleanValue(standingInFor dump: Dump) -> sending Value? {
        let (value, reader) = work.take()
        guard !reader.scanInterrupted, reader.warnings.count == 0, !dump.scanInterrupted else { return nil }
        return value
    }

    /// Waits, and moves a `Sendable` fact out of the value when the read warned of nothing (the
    /// **clean stand-in** rule, the rest of the value staying here for `value(after:)`); nil when
    /// it warned. Moved, not copied: a copy kept the queue's coverage of every gap alive beside
    /// the timeline's own through the report's whole build (stop 54).
    func takeCleanFact<Fact: Sendable>(_ take: @Sendable (inout Value) -> Fact) -> Fact? {
        work.modify { read in read.reader.warnings.count == 0 && !read.reader.scanInterrupted ? take(&read.value) : nil }
    }

    /// Waits and drops the value (the caller no longer needs it): no thread outlives its reading.
    package func discard() {
        _ = work.take()
    }

    /// Waits and hands over the value and the second connection (the rules above).
    func finish() -> sending (value: Value, reader: Dump) {
        work.take()
    }
}
