import Foundation

/// Why a dump could not be opened. Each case renders as one plain sentence naming the file;
/// the CLI prints it and exits with code 2 (1 for `environment`: the machine failed, not the input).
public enum DumpError: Error, CustomStringConvertible, Sendable, Equatable {
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case notADatabase(path: String)
    case damaged(path: String, reason: String)
    case unknownSchema(path: String, tables: [String])
    /// A FIFO, socket or device: never read (it could block forever or never end).
    case notARegularFile(path: String, kind: String)
    /// This machine, not the file, stopped the read: the private folder or copy could not be made
    /// (`$TMPDIR` full, read-only or not a folder), or the process ran out of file descriptors or
    /// memory. Nothing is known about the file; `reason` names the folder when one is at fault.
    /// `fleet` makes it a `failed` row (tried again), never `not_a_dump`.
    case environment(path: String, reason: String)

    public var path: String {
        switch self {
        case .missing(let p), .unreadable(let p, _), .empty(let p), .notADatabase(let p),
             .damaged(let p, _), .unknownSchema(let p, _), .notARegularFile(let p, _), .environment(let p, _):
            return p
        }
    }

    public var description: String {
        switch self {
        case .missing(let path):
            return "\(path): no such file."
        case .unreadable(let path, let reason):
            return "\(path): cannot be read (\(reason))."
        case .empty(let path):
            return "\(path) is empty (0 bytes), so it is not a bgeo.db or LongPing dump."
        case .notADatabase(let path):
            // A companion named by mistake: name the database to open instead.
            if let database = DumpError.database(ofCompanion: path) {
                let kind = path.hasSuffix("-wal") ? "write-ahead log" : path.hasSuffix("-shm") ? "shared-memory index" : "rollback journal"
                return "\(path) is the \(kind) of \(database), not a database itself: open \(database) (the files beside it are read with it)."
            }
            return "\(path) is not an SQLite database, so it is not a bgeo.db or LongPing dump."
        case .damaged(let path, let reason):
            return "\(path) is a damaged or truncated SQLite database (\(reason))."
        case .unknownSchema(let path, let tables):
            let list = tables.isEmpty ? "no tables" : "only " + tables.joined(separator: ", ")
            return "\(path) is an SQLite database but has none of the BGeo or LongPing tables (it has \(list))."
        case .notARegularFile(let path, let kind):
            return "\(path) is \(kind), not a regular file, so it is not read as evidence (copy the dump to a file first)."
        case .environment(let path, let reason):
            return "\(path) was not read: \(reason)."
        }
    }

    /// `x.db` for `x.db-wal`, `x.db-shm` or `x.db-journal`; nil for any other name.
    static func database(ofCompanion path: String) -> String? {
        for suffix in ["-wal", "-shm", "-journal"] where path.hasSuffix(suffix) && path.count > suffix.count {
            return String(path.dropLast(suffix.count))
        }
        return nil
    }

    /// True for `environment`: the input may well be a dump, so a later run should try it again.
    public var isEnvironmental: Bool {
        if case .environment = self { return true }
        return false
    }

    /// The process is out of descriptors or memory (the evidence itself may be fine).
    static func isExhaustion(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOMEM
    }

    /// The sentence's reason when the private copy cannot be made in `folder`.
    package static func copyReason(in folder: String, _ code: Int32) -> String {
        "its private copy cannot be made in \(folder) (\(String(cString: strerror(code))))"
            + (isExhaustion(code) ? "" : "; set TMPDIR to a writable folder with room")
    }
}
