import Foundation
import BGeoSQLite

/// Rows that arrived out of order, kept sorted on disk: an SQLite file of its own in the private
/// working folder (one connection, used by one thread), keyed by an order-preserving byte key.
/// Inserting costs a B-tree insert; reading back walks the key order. Only the rare rows a
/// bounded window cannot place come here, so its speed matters less than its bounded memory
/// (SQLite's own page cache, a couple of MB).
package final class SpillTable {
    package let path: String
    private let database: Database
    private var insert: Statement?
    private var inTransaction = false
    private let payload = ByteSink()
    /// Rows inserted.
    package private(set) var count = 0
    /// Set once the file belongs to a `WorkFileLease` (`handOver`): this table no longer removes it.
    private var handedOver = false

    package init(folder: WorkFolder, stem: String) throws(WorkFileError) {
        path = folder.newFile(stem, extension: "db")
        do {
            database = try Database(path: path, mode: .readWriteCreate)
            // A scratch file: no journal, no fsync; gone with the working folder.
            try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;"
                + "CREATE TABLE spill (key BLOB PRIMARY KEY, payload BLOB NOT NULL) WITHOUT ROWID")
        } catch {
            throw WorkFileError(path: path, reason: error.message)
        }
    }

    deinit {
        insert = nil
        if !handedOver { unlink(path) }
    }

    /// Commits what was added and hands the file to a lease that removes it when its last holder
    /// lets go. Each pass then reads it through a connection of its own (`cursor(of:)`), so passes
    /// on several threads share no connection. Nothing is added afterwards.
    package func handOver() throws(WorkFileError) -> WorkFileLease {
        try seal()
        handedOver = true
        return WorkFileLease(path: path)
    }

    /// The rows of a handed-over table in key order, through a read-only connection of their own.
    package static func cursor(of file: WorkFileLease) throws(WorkFileError) -> Cursor {
        do {
            let database = try Database(path: file.path, mode: .readOnly)
            let statement = try database.prepare("SELECT key, payload FROM spill ORDER BY key")
            return Cursor(statement: statement, path: file.path, owning: database, file: file)
        } catch {
            throw WorkFileError(path: file.path, reason: error.message)
        }
    }

    /// Adds one row; `encode` writes its payload. Keys must be unique.
    package func add(key: SpillKey, _ encode: (ByteSink) -> Void) throws(WorkFileError) {
        do {
            if !inTransaction {
                try database.execute("BEGIN")
                inTransaction = true
            }
            if insert == nil { insert = try database.prepare("INSERT INTO spill (key, payload) VALUES (?, ?)") }
            payload.reset()
            encode(payload)
            try insert!.bind(cells: [.blob(key.bytes), .blob(payload.bytes)])
            while try insert!.step() {}
            count += 1
        } catch {
            throw WorkFileError(path: path, reason: error.message)
        }
    }

    /// Commits what was added: call before reading.
    package func seal() throws(WorkFileError) {
        guard inTransaction else { return }
        do {
            try database.execute("COMMIT")
            inTransaction = false
        } catch {
            throw WorkFileError(path: path, reason: error.message)
        }
    }

    /// The rows in key order (from `from` on, when given).
    package func cursor(from key: SpillKey? = nil) throws(WorkFileError) -> Cursor {
        try seal()
        do {
            let statement = try database.prepare(key == nil ? "SELECT key, payload FROM spill ORDER BY key"
                                                 : "SELECT key, payload FROM spill WHERE key >= ? ORDER BY key")
            if let key { try statement.bind(cells: [.blob(key.bytes)]) }
            return Cursor(statement: statement, path: path)
        } catch {
            throw WorkFileError(path: path, reason: error.message)
        }
    }

    /// Whether a row with exactly this key exists.
    package func contains(_ key: SpillKey) throws(WorkFileError) -> Bool {
        try seal()
        do {
            let statement = try database.prepare("SELECT 1 FROM spill WHERE key = ?")
            try statement.bind(cells: [.blob(key.bytes)])
            return try statement.step()
        } catch {
            throw WorkFileError(path: path, reason: error.message)
        }
    }

    /// Steps through rows in key order.
    package final class Cursor {
        private let statement: Statement
        private let path: String
        package private(set) var failure: WorkFileError?
        /// The connection and file of a handed-over table's pass (the statement holds its
        /// connection unowned), released after the statement.
        private let connection: Database?
        private let file: WorkFileLease?

        fileprivate init(statement: Statement, path: String, owning connection: Database? = nil, file: WorkFileLease? = nil) {
            self.statement = statement
            self.path = path
            self.connection = connection
            self.file = file
        }

        /// Calls `body` with the next row's payload (valid during the call); false at the end.
        package func next(_ body: (TapeRecordReader) -> Void) -> Bool {
            do {
                guard try statement.step() else { return false }
            } catch {
                failure = WorkFileError(path: path, reason: error.message)
                return false
            }
            statement.withBlob(1) { body(TapeRecordReader(base: $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: $0.count)) }
            return true
        }
    }
}

/// An order-preserving byte key: fields appended so that comparing the bytes (SQLite compares
/// BLOBs with memcmp) orders rows like comparing the fields in turn.
package struct SpillKey: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init() { bytes.reserveCapacity(24) }

    /// A Double in total order (sign bit flipped for positives, all bits for negatives); -0 as +0.
    package mutating func append(_ value: Double) {
        let bits = (value == 0 ? 0.0 : value).bitPattern
        append(bits >> 63 == 0 ? bits | (1 << 63) : ~bits)
    }

    package mutating func append(_ value: Int64) { append(UInt64(bitPattern: value) ^ (1 << 63)) }

    package mutating func append(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    package mutating func append(bytes raw: some Collection<UInt8>) { bytes.append(contentsOf: raw) }
}
