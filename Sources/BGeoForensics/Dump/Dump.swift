import CSQLite
import Foundation

/// An opened device dump: a private copy of the evidence, its detected layout, and the warnings
/// found while reading it. Split by concern: `Dump+Queue` (records), `Dump+Log` (log entries),
/// `Dump+State` (engine state and config).
public final class Dump {
    /// The file the user named.
    public let path: String
    /// Each input file with its size and SHA-256. The hashes are computed on a second thread
    /// while the copy is read: the first use waits for them. A file that could not be hashed is
    /// named in a warning and its entry says why.
    public var inputs: [DumpInput] {
        if let failure = evidence.hashFailure {
            warnings.add(table: "evidence", rowId: nil, "an input could not be hashed: \(failure.description)")
        }
        return evidence.inputs
    }
    public let layout: DumpLayout
    /// Problems found so far, one per row and message.
    public let warnings = WarningLog()
    /// Connection to the private copy. Writing to it never touches the evidence.
    public let database: Database
    private let evidence: EvidenceCopy

    /// Opens `path` as evidence: copies it (and its -wal) privately, hashes the inputs, and
    /// detects the format. Throws a `DumpError` with one plain sentence when it cannot.
    public init(path: String) throws(DumpError) {
        self.path = path
        let evidence = try EvidenceCopy(path: path)
        self.evidence = evidence
        guard let main = evidence.files.first, main.bytes > 0 else { throw .empty(path: path) }
        try Dump.checkHeader(copyPath: evidence.copyPath, originalPath: path, fileBytes: main.bytes,
                             hasWAL: evidence.files.contains { $0.path.hasSuffix("-wal") })
        do {
            database = try Database(path: evidence.copyPath, mode: .readWriteCreate)
            try database.execute("PRAGMA query_only = 1")
        } catch {
            throw Dump.classify(error, path: path)
        }
        layout = try Dump.detectLayout(database, path: path)
        loadStateWarnings()
    }

    /// A second connection to the same private copy, with its own (empty) warning log, for
    /// scanning another table on another thread. Nothing is copied or hashed again.
    public func parallelReader() throws(DumpError) -> Dump {
        try Dump(sibling: self)
    }

    private init(sibling: Dump) throws(DumpError) {
        path = sibling.path
        layout = sibling.layout
        evidence = sibling.evidence
        do {
            database = try Database(path: sibling.evidence.copyPath, mode: .readWriteCreate)
            try database.execute("PRAGMA query_only = 1")
        } catch {
            throw Dump.classify(error, path: path)
        }
    }

    /// The first 100 bytes decide "is it SQLite at all" before SQLite is asked anything, so a zip
    /// or a text file gets a plain answer; the header's page count catches truncation.
    private static func checkHeader(copyPath: String, originalPath: String, fileBytes: Int64, hasWAL: Bool) throws(DumpError) {
        guard let handle = FileHandle(forReadingAtPath: copyPath) else {
            throw .unreadable(path: originalPath, reason: "the private copy cannot be opened")
        }
        defer { try? handle.close() }
        let header = [UInt8](handle.readData(ofLength: 100))
        let magic = Array("SQLite format 3\0".utf8)
        guard header.count >= 16, Array(header[0..<16]) == magic else { throw .notADatabase(path: originalPath) }
        guard header.count == 100 else { throw .damaged(path: originalPath, reason: "the file ends inside the 100-byte header") }
        var pageSize = Int64(header[16]) << 8 | Int64(header[17])
        if pageSize == 1 { pageSize = 65_536 }
        let pageCount = Int64(header[28]) << 24 | Int64(header[29]) << 16 | Int64(header[30]) << 8 | Int64(header[31])
        let changeCounter = header[24..<28]
        let validFor = header[92..<96]
        // The in-header size is only trustworthy when "version-valid-for" matches the change counter.
        if Array(changeCounter) == Array(validFor), pageCount > 0, fileBytes < pageCount * pageSize {
            throw .damaged(path: originalPath,
                           reason: "truncated: its header says \(pageCount * pageSize) bytes but the file has \(fileBytes)")
        }
        _ = hasWAL
    }

    static func classify(_ error: SQLiteError, path: String) -> DumpError {
        switch error.primaryCode {
        case SQLITE_NOTADB: return .notADatabase(path: path)
        case SQLITE_CORRUPT: return .damaged(path: path, reason: error.message)
        default: return .unreadable(path: path, reason: error.message)
        }
    }

    private static func detectLayout(_ db: Database, path: String) throws(DumpError) -> DumpLayout {
        var tables: [String] = []
        do {
            let stmt = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            while try stmt.step() { tables.append(stmt.text(0) ?? "") }
        } catch {
            throw classify(error, path: path)
        }
        func columns(_ table: String) throws(DumpError) -> [String] {
            do {
                let stmt = try db.prepare("PRAGMA table_info(\(quoteIdentifier(table)))")
                var names: [String] = []
                while try stmt.step() { names.append(stmt.text(1) ?? "") }
                return names
            } catch {
                throw classify(error, path: path)
            }
        }
        let hasState = tables.contains("state")
        let hasLog = tables.contains("log_entries")
        if tables.contains("queue"), try columns("queue").contains("attempts"), !tables.contains("location_events") {
            let cols = try columns("queue")
            return DumpLayout(format: .longping, schemaVersion: nil, isLegacy: false, queueTable: "queue",
                              recordColumn: cols.contains("payload") ? "payload" : "json", queueColumns: cols,
                              hasLog: hasLog, hasState: hasState, tables: tables)
        }
        guard tables.contains("location_events") || hasLog else {
            throw .unknownSchema(path: path, tables: tables.filter { !$0.hasPrefix("sqlite_") })
        }
        var cols: [String] = []
        if tables.contains("location_events") { cols = try columns("location_events") }
        let recordColumn = cols.contains("json") ? "json" : (cols.contains("data") ? "data" : "json")
        var schemaVersion: Int?
        if hasState {
            if let stmt = try? db.prepare("SELECT value FROM state WHERE key = 'schema_version'"),
               (try? stmt.step()) == true, let text = stmt.text(0) {
                schemaVersion = Int(text.trimmingCharacters(in: .whitespaces))
                    ?? (try? JSONParser.parse(text))?.intValue
            }
        }
        let legacy = (!cols.isEmpty && (recordColumn == "data" || !cols.contains("kind"))) || (schemaVersion.map { $0 < 3 } ?? false)
        return DumpLayout(format: .bgeo, schemaVersion: schemaVersion, isLegacy: legacy,
                          queueTable: tables.contains("location_events") ? "location_events" : nil,
                          recordColumn: recordColumn, queueColumns: cols, hasLog: hasLog, hasState: hasState,
                          tables: tables)
    }

    /// The private working folder of the copy (see `EvidenceCopy.workingFolder`).
    var workingFolder: String { evidence.workingFolder }

    /// The dump's file name without folders, for titles.
    public var displayName: String { (path as NSString).lastPathComponent }

    /// Reports a damaged page hit mid-scan as a located warning instead of failing the command.
    func warnScanFailure(_ error: SQLiteError, table: String, afterRow rowId: Int64?) {
        let position = rowId.map { "after row \($0)" } ?? "at its first row"
        warnings.add(table: table, rowId: rowId,
                     "reading stopped \(position): \(error.message) (the rest of this table could not be read)")
    }
}

/// Quotes an SQL identifier.
func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
