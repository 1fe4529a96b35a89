/// Why a dump could not be opened. Each case renders as one plain sentence naming the file;
/// the CLI prints it and exits with code 2.
public enum DumpError: Error, CustomStringConvertible, Sendable, Equatable {
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case notADatabase(path: String)
    case damaged(path: String, reason: String)
    case unknownSchema(path: String, tables: [String])
    /// A FIFO, socket or device: never read (it could block forever or never end).
    case notARegularFile(path: String, kind: String)

    public var path: String {
        switch self {
        case .missing(let p), .unreadable(let p, _), .empty(let p), .notADatabase(let p),
             .damaged(let p, _), .unknownSchema(let p, _), .notARegularFile(let p, _):
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
            return "\(path) is not an SQLite database, so it is not a bgeo.db or LongPing dump."
        case .damaged(let path, let reason):
            return "\(path) is a damaged or truncated SQLite database (\(reason))."
        case .unknownSchema(let path, let tables):
            let list = tables.isEmpty ? "no tables" : "only " + tables.joined(separator: ", ")
            return "\(path) is an SQLite database but has none of the BGeo or LongPing tables (it has \(list))."
        case .notARegularFile(let path, let kind):
            return "\(path) is \(kind), not a regular file, so it is not read as evidence (copy the dump to a file first)."
        }
    }
}
