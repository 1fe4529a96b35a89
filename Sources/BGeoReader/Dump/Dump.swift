import Foundation
import BGeoSQLite

/// An opened device dump: the evidence (read in place, or a private copy; `EvidenceCopy`), its
/// detected layout, and the warnings found while reading it. Split by concern: `Dump+Queue` (records), `Dump+Log` (log entries),
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
    /// Why an input could not be hashed, if one could not (waits for the hashes, as `inputs`).
    public var hashFailure: DumpError? { evidence.hashFailure }
    public let layout: DumpLayout
    /// Problems found so far, one per row and message.
    public let warnings: WarningLog
    /// Connection to what is read: the evidence in place (read-only, immutable) or the private copy.
    public let database: Database
    private let evidence: EvidenceCopy
    /// Tables salvaged after a damaged page (per connection; nil: could not be salvaged).
    var salvagedTables: [String: SalvagedTable?] = [:]
    /// Set when a scan on this connection met a statement that could not run or a damaged page
    /// (and so warned, or went on in a salvaged copy): a split scan is then redone in one piece.
    package internal(set) var scanInterrupted = false
    /// Whether a damaged page is salvaged past (the default). A connection whose scan is redone in
    /// one piece after any damage turns it off: it stops at the damage instead.
    var salvagesOnDamage = true
    /// Tables whose salvage another connection already announced for this dump (`PendingRedactor`):
    /// this one salvages them silently, as a second scan on one connection would.
    var salvageAnnounced: Set<String> = []
    /// The one-row reads of a fix's motion (`Dump+FixMotion`), compiled once per connection: the
    /// timeline reads two per gap (stop 51: a statement compiled per read was a tenth of
    /// `timeline` on a dump of 25,000 gaps).
    var motionReads: [String: Statement] = [:]

    /// Opens `path` as evidence: reads a whole dump with no -wal or -journal where it lies (read-only,
    /// immutable, through a held descriptor), else copies it (and its -wal and -journal) into a
    /// private folder inside `privateParent` (default `$TMPDIR`, which also holds the work files);
    /// hashes the inputs and detects the format. A hot journal is rolled back in the copy, a -wal
    /// that does not belong to the dump is left out, a cut file is read as far as it goes; each
    /// with a warning naming the file. Throws a `DumpError` with one plain sentence when it cannot
    /// read it at all. `readsInPlace` false copies even a dump that could be read where it lies.
    public init(path: String, privateParent: String? = nil, hashing: InputHashing = .beside, readsInPlace: Bool = true) throws(DumpError) {
        self.path = path
        let evidence = try EvidenceCopy(path: path, privateParent: privateParent, hashing: hashing, inPlace: readsInPlace)
        self.evidence = evidence
        warnings = WarningLog(folder: evidence.workFiles)
        for ignored in evidence.ignored { warnings.add(table: ignored.path, rowId: nil, ignored.reason) }
        guard let main = evidence.files.first, main.bytes > 0 else { throw .empty(path: path) }
        // The committed state first: every check below reads the copy's bytes (and a rollback
        // may change its size).
        var fileBytes = main.bytes
        var journalWarning: DumpWarning?
        if let journal = evidence.files.first(where: { $0.path.hasSuffix("-journal") }) {
            journalWarning = HotJournal.rollBack(copyPath: evidence.copyPath, journalPath: journal.path)
            fileBytes = (try? EvidenceCopy.size(of: evidence.copyPath)) ?? fileBytes
        }
        let header = try DatabaseHeader(copyPath: evidence.copyPath, originalPath: path)
        // Only a copy is ever repaired: a dump read in place was found whole, and its path is the
        // evidence's own descriptor, which must never be opened for writing.
        let truncation = try evidence.readsInPlace ? nil
            : TruncatedCopy.repair(copyPath: evidence.copyPath, originalPath: path, header: header, fileBytes: fileBytes)
        let walPath = evidence.files.first(where: { $0.path.hasSuffix("-wal") })?.path
        var walWarning = walPath.flatMap { Dump.checkWAL($0, copy: evidence.copyPath + "-wal", dump: path, header: header) }
        let copyWAL = evidence.copyPath + "-wal"
        let anchors = walPath != nil && EvidenceFile.exists(copyWAL) ? WALIdentity.readMainAlone(copyPath: evidence.copyPath) : nil
        func open() throws(DumpError) -> Database {
            do {
                let db = try evidence.openDatabase()
                try db.execute("PRAGMA query_only = 1")
                return db
            } catch {
                throw Dump.classify(error, path: path, truncation: truncation)
            }
        }
        var db: Database? = try open()
        if let walPath, let anchors, let reason = db.flatMap(anchors.mismatch(in:)) {
            // Read the main file alone: close (without the checkpoint SQLite does on close, which
            // would write the foreign pages into the copy), drop the WAL and its index, reopen.
            try? db?.setNoCheckpointOnClose()
            db = nil
            for suffix in ["-wal", "-shm"] { _ = unlink(evidence.copyPath + suffix) }
            db = try open()
            walWarning = Dump.ignoredWALWarning(walPath, reason: reason, dump: path)
        }
        database = db!
        do throws(DumpError) {
            layout = try Dump.detectLayout(database, path: path)
        } catch {
            guard let truncation, case .damaged = error else { throw error }
            throw .damaged(path: path, reason: truncation.description + ", and what is left holds no readable schema")
        }
        if let journalWarning { warnings.add(journalWarning) }
        if let walWarning { warnings.add(walWarning) }
        if let truncation {
            let damaged = tablesReachingMissingPages()
            let tables = damaged.isEmpty
                ? "no table reaches the missing pages"
                : "tables that may be incomplete: " + damaged.joined(separator: ", ")
            warnings.add(table: path, rowId: nil, truncation.description + "; everything before the cut is read (" + tables + ")")
        }
        loadStateWarnings()
    }

    /// Leaves the private copy's -wal out (SQLite then reads the main file alone) when it does
    /// not belong to the dump; the warning names the evidence file. Also notes discarded frames.
    private static func checkWAL(_ walPath: String, copy: String, dump: String, header: DatabaseHeader) -> DumpWarning? {
        switch WALCheck.check(walPath: copy, mainPath: String(copy.dropLast(4)), main: header) {
        case .use(_, let discarded):
            guard discarded > 0 else { return nil }
            return DumpWarning(table: walPath, rowId: nil,
                               message: "\(discarded) frame\(discarded == 1 ? "" : "s") after the last committed transaction "
                               + "(unfinished or cut off) \(discarded == 1 ? "is" : "are") not part of the database and not read")
        case .empty:
            return nil
        case .ignore(let reason):
            _ = unlink(copy)
            return ignoredWALWarning(walPath, reason: reason, dump: dump)
        }
    }

    private static func ignoredWALWarning(_ walPath: String, reason: String, dump: String) -> DumpWarning {
        DumpWarning(table: walPath, rowId: nil,
                    message: "ignored: \(reason); the main file \((dump as NSString).lastPathComponent) was read alone")
    }

    /// A second connection to the same private copy, with its own (empty) warning log, for
    /// scanning another table on another thread. Nothing is copied or hashed again.
    func parallelReader() throws(DumpError) -> sending Dump {
        // Made from the sibling's Sendable parts only: the new connection shares nothing with
        // this one, so it can be sent to another thread.
        try Dump(path: path, layout: layout, evidence: evidence)
    }

    private init(path: String, layout: DumpLayout, evidence: EvidenceCopy) throws(DumpError) {
        self.path = path
        self.layout = layout
        self.evidence = evidence
        warnings = WarningLog(folder: evidence.workFiles)
        do {
            database = try evidence.openDatabase()
            try database.execute("PRAGMA query_only = 1")
        } catch {
            throw Dump.classify(error, path: path)
        }
    }

    package static func classify(_ error: SQLiteError, path: String, truncation: TruncatedCopy? = nil) -> DumpError {
        switch error.primaryCode {
        case SQLiteError.Code.notADatabase: return .notADatabase(path: path)
        case SQLiteError.Code.corrupt: return .damaged(path: path, reason: (truncation.map { $0.description + ": " } ?? "") + error.message)
        default:
            guard isEnvironmental(error) else { return .unreadable(path: path, reason: error.message) }
            // True of both reads: the private copy, or the evidence read in place (no descriptor left).
            return .environment(path: path, reason: "SQLite could not read it on this machine (\(error.message))")
        }
    }

    /// SQLite failed on the machine's account (on the private copy in `$TMPDIR`, or reading in place): no room
    /// (recovering a WAL or rolling back a journal writes), no memory (`--memory-limit`), no
    /// descriptor, or a write, sync or shared-memory call that failed. Nothing said about the dump.
    static func isEnvironmental(_ error: SQLiteError) -> Bool {
        switch error.primaryCode {
        case SQLiteError.Code.full, SQLiteError.Code.noMemory, SQLiteError.Code.cannotOpen: return true
        case SQLiteError.Code.ioError: return copyWriteFailures.contains(error.code)
        default: return false
        }
    }

    /// SQLITE_IOERR_WRITE, _FSYNC, _DIR_FSYNC, _TRUNCATE, _NOMEM, _SHMOPEN, _SHMSIZE, _SHMMAP (the
    /// extended codes, which C macros Swift cannot import): writing or mapping the copy failed.
    private static let copyWriteFailures = Set([3, 4, 5, 6, 12, 18, 19, 21].map { SQLiteError.Code.ioError | Int32($0) << 8 })

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

    /// The folder holding the private copy (inside `$TMPDIR` or the `privateParent` given).
    public var privateFolder: String { evidence.privateFolder }

    /// The folder for this dump's working files (`EvidenceCopy.workFiles`), shared by every
    /// connection to the same copy.
    package var workFiles: WorkFolder { evidence.workFiles }

    /// The private copy itself: what a stored trace holds to keep its working files (which live
    /// in the copy's folder) for as long as it is read, on any thread, without this connection.
    package var privateCopy: EvidenceCopy { evidence }

    /// Removes the private copy now, before this value goes away (nothing may be read after).
    public func removePrivateCopy() { evidence.removeCopy() }

    /// The dump's file name without folders, for titles.
    public var displayName: String { (path as NSString).lastPathComponent }

    /// Reports a damaged page hit mid-scan as a located warning instead of failing the command.
    func warnScanFailure(_ error: SQLiteError, table: String, afterRow rowId: Int64?) {
        let position = rowId.map { "after row \($0)" } ?? "at its first row"
        warnings.add(table: table, rowId: rowId,
                     Dump.scanStopOpening + "\(position): \(error.message) (the rest of this table could not be read)")
    }
}

/// Quotes an SQL identifier (a table or column name a dump may make hostile).
package func quoteIdentifier(_ name: String) -> String {
    QuotedText.quoted(name, by: UInt8(ascii: "\""))
}
