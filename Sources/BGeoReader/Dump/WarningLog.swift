import Foundation
import Synchronization

/// Collects a dump's warnings and lists each once, in the order found. Safe to add to from
/// several threads: the log lives in a `Mutex`.
///
/// The log is kept as found — a repeat too — and each warning is listed once, at its first place
/// (`list()`): so a later reading's warnings moved or placed before others (`moveWarnings`,
/// `place`) read as if that reading had been done first, repeats included. A damaged or odd dump
/// can warn of every row, so memory is bounded: the log is a sequence of pieces, in memory up to
/// `held` warnings and, past them (with a working folder), ranges of a `WarningTape`; a long log
/// is listed by an external sort. Positions (`count`, the marks given to `place` and
/// `moveWarnings`) count the warnings as kept, repeats included.
public final class WarningLog: Sendable {
    /// How many warnings a dump's log keeps in memory before the rest go to a tape.
    package static let heldWarnings = 10_000

    private struct Entries {
        /// The log as kept, in order.
        var pieces: [WarningPiece] = []
        var count = 0
        /// Where warnings go once there are more than `held` (nil until then).
        var tape: WarningTape?
        /// Bumped by every change: a listing stands for the version it was made of.
        var version = 0
        var listing: (version: Int, list: WarningList)?
    }
    private let entries = Mutex(Entries())
    private let folder: WorkFolder?
    private let held: Int

    /// A log held in memory whatever its size.
    public init() {
        folder = nil
        held = .max
    }

    /// A log that keeps its warnings past the first `held` on a tape in `folder`.
    package init(folder: WorkFolder, held: Int = WarningLog.heldWarnings) {
        self.folder = folder
        self.held = max(held, 1)
    }

    /// How many warnings were kept so far, a repeat too (a place to `place` others at later);
    /// `list().count` counts each once.
    public var count: Int { entries.withLock { $0.count } }

    /// Whether the log went past its held warnings to a tape.
    package var isTaped: Bool { entries.withLock { $0.tape != nil } }

    public func add(_ warning: DumpWarning) {
        entries.withLock { entries in
            entries.version += 1
            entries.count += 1
            if entries.tape == nil, entries.count > held, let folder { entries.tape = try? WarningTape(folder: folder) }
            guard let tape = entries.tape else {
                // In memory (below `held`, no folder, or no tape could be made): the last held piece grows.
                if case .held(var warnings)? = entries.pieces.last {
                    entries.pieces.removeLast()
                    warnings.append(warning)
                    entries.pieces.append(.held(warnings))
                } else {
                    entries.pieces.append(.held([warning]))
                }
                return
            }
            let record = tape.append(warning)
            if case .taped(let last, let range)? = entries.pieces.last, last === tape, range.upperBound == record {
                entries.pieces[entries.pieces.count - 1] = .taped(tape, range.lowerBound..<record + 1)
            } else {
                entries.pieces.append(.taped(tape, record..<record + 1))
            }
        }
    }

    public func add(table: String, rowId: Int64?, _ message: String) {
        add(DumpWarning(table: table, rowId: rowId, message: message))
    }

    /// Every warning once, in order: for tests and logs known to be small (a listing that may be
    /// long is streamed from `list()`). A tape that cannot be read ends it early.
    package var all: [DumpWarning] { (try? list())?.all ?? [] }

    /// The warnings as kept from position `start` on, repeats included, in order: for a rule
    /// that moves some of them (`ScanRunner.placeAsIfFirst`).
    package func forEachKept(from start: Int, _ body: (DumpWarning) throws(WorkFileError) -> Void) throws(WorkFileError) {
        for piece in WarningLog.split(snapshot(), at: start).1 { try piece.forEach(body) }
    }

    /// The log listed: each warning once, at its first place. Made once per version of the log;
    /// a log that went to tape is listed by an external sort in the working folder, so memory
    /// stays bounded however many warnings there are.
    public func list() throws(WorkFileError) -> WarningList {
        try entries.withLock { entries throws(WorkFileError) in
            if let listing = entries.listing, listing.version == entries.version { return listing.list }
            let list = try WarningList.dropRepeats(of: entries.pieces, folder: entries.count > held ? folder : nil)
            entries.listing = (entries.version, list)
            return list
        }
    }

    /// Puts `other`'s warnings at `index` (a past `count`), in their order, as if they had been
    /// found there: one of them found since is then listed there, not where it was found. For
    /// work done on another connection beside the reads that followed it, whose warnings must
    /// read as if it had been done first.
    public func place(_ other: WarningLog, at index: Int) {
        let placed = other.snapshot()
        guard !placed.isEmpty else { return }
        entries.withLock { entries in
            let (head, tail) = WarningLog.split(entries.pieces, at: index)
            entries.pieces = head + placed + tail
            entries.count += placed.reduce(0) { $0 + $1.count }
            entries.version += 1
        }
    }

    /// Moves the warnings found since `start` (a past `count`) to `index` (an earlier one), as
    /// `place` puts another log's there: for a scan done after others whose warnings must read as
    /// if it had been done before them.
    public func moveWarnings(since start: Int, to index: Int) {
        entries.withLock { entries in
            let (front, tail) = WarningLog.split(entries.pieces, at: start)
            let (head, middle) = WarningLog.split(front, at: min(index, start))
            entries.pieces = head + tail + middle
            entries.version += 1
        }
    }

    /// Appends another log's warnings after this one's (keeps per-table order when two tables
    /// were scanned in parallel).
    public func add(contentsOf other: WarningLog) {
        let added = other.snapshot()
        guard !added.isEmpty else { return }
        entries.withLock { entries in
            entries.pieces += added
            entries.count += added.reduce(0) { $0 + $1.count }
            entries.version += 1
        }
    }

    /// The log's pieces as they are now (a held piece is a value; a taped range reads only what
    /// was written before), for another log to take in.
    private func snapshot() -> [WarningPiece] { entries.withLock { $0.pieces } }

    /// `pieces` cut at position `index`: the pieces before it and those from it on.
    private static func split(_ pieces: [WarningPiece], at index: Int) -> ([WarningPiece], [WarningPiece]) {
        var head: [WarningPiece] = [], rest = index
        for (i, piece) in pieces.enumerated() {
            if rest == 0 { return (head, Array(pieces[i...])) }
            if rest >= piece.count {
                head.append(piece)
                rest -= piece.count
                continue
            }
            let (a, b) = piece.split(at: rest)
            return (head + [a], [b] + pieces[(i + 1)...])
        }
        return (head, [])
    }
}

/// A run of a `WarningLog`: warnings in memory, or a range of a tape's records.
enum WarningPiece: Sendable {
    case held([DumpWarning])
    case taped(WarningTape, Range<Int>)

    var count: Int {
        switch self {
        case .held(let warnings): warnings.count
        case .taped(_, let range): range.count
        }
    }

    /// The piece's first `n` warnings and the rest.
    func split(at n: Int) -> (WarningPiece, WarningPiece) {
        switch self {
        case .held(let warnings): (.held(Array(warnings.prefix(n))), .held(Array(warnings.dropFirst(n))))
        case .taped(let tape, let range):
            (.taped(tape, range.lowerBound..<range.lowerBound + n), .taped(tape, range.lowerBound + n..<range.upperBound))
        }
    }

    func forEach(_ body: (DumpWarning) throws(WorkFileError) -> Void) throws(WorkFileError) {
        switch self {
        case .held(let warnings): for warning in warnings { try body(warning) }
        case .taped(let tape, let range): try tape.read(range, body)
        }
    }
}
