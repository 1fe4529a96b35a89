import Foundation
import BGeoForensics
import BGeoSQLite

/// The queue lane: batches oldest first, deliveries recorded by one id, progress counters.
extension WorkingCopy {
    // MARK: queue

    /// The next `limit` rows oldest first (nil = all).
    public func nextBatch(limit: Int?) throws -> [Row] {
        try nextBatch(after: deliveredThrough, limit: limit)
    }

    /// Deletes the rows of delivered batches (ids up to `deliveredThrough`) in one transaction.
    /// The engine calls it once a drain ends; opening a copy calls it too, so rows a killed run
    /// had delivered never linger. When nothing undelivered is left the table is cleared whole,
    /// which SQLite does page by page instead of row by row (a per-batch delete cost ~1 µs per row
    /// on the request path).
    public func purgeDelivered() throws {
        guard deliveredThrough > purgedThrough else { return }
        let through = deliveredThrough
        try transaction {
            try setProgress("delivered_through", through)
            let undelivered = try cached("SELECT EXISTS (SELECT 1 FROM queue WHERE id > ?)")
            try undelivered.bind([.integer(through)])
            let anyLeft = try undelivered.step() && undelivered.int(0) != 0
            try undelivered.bind([])  // reset: no statement may stay active across the commit
            if anyLeft {
                try cached("DELETE FROM queue WHERE id <= ?").run([.integer(through)])
            } else {
                try cached("DELETE FROM queue").run()
            }
        }
        purgedThrough = through
    }

    /// The batch's rows as delivered: `delivered_through` moves to its last id (in the caller's
    /// transaction; effective once it commits), kept on the journal line of that transaction
    /// when there is one (the page the commit writes anyway), else in `progress`.
    func markDelivered(_ rows: [Row]) throws {
        guard let first = rows.first, let last = rows.last else { return }
        // A batch is always the oldest queued rows: anything else means the queue changed
        // underneath the run, and the caller's transaction rolls back whole.
        guard first.id > (pendingDeliveredThrough ?? deliveredThrough) else {
            throw Mismatch(description: "queue rows \(first.id)…\(last.id) were already delivered; nothing was committed")
        }
        if let row = journaledRow {
            try cached("UPDATE journal SET delivered_through = ? WHERE id = ?").run([.integer(last.id), .integer(row)])
        } else {
            // UPDATE, not INSERT OR REPLACE: a replace rewrites the key's index page too.
            try cached("UPDATE progress SET value = ? WHERE key = 'delivered_through'").run([.integer(last.id)])
            if database.changes == 0 { try setProgress("delivered_through", last.id) }
        }
        pendingDeliveredThrough = last.id
    }

    static func progress(_ db: Database, _ key: String) throws -> Int64 {
        let stmt = try db.prepare("SELECT value FROM progress WHERE key = ?")
        try stmt.bind([.text(key)])
        return try stmt.step() ? stmt.int64(0) : 0
    }

    /// The `limit` queued rows after `id` (and after every delivered row), oldest first: the
    /// batch that follows one in flight.
    public func nextBatch(after id: Int64, limit: Int?) throws -> [Row] {
        let stmt = try cached("SELECT id, uuid, json, attempts FROM queue WHERE id > ? ORDER BY id LIMIT ?")
        try stmt.bind([.integer(max(id, deliveredThrough)), .integer(Int64(limit ?? -1))])
        var rows: [Row] = []
        while try stmt.step() {
            rows.append(Row(id: stmt.int64(0), uuid: stmt.text(1) ?? "", json: stmt.text(2) ?? "", attempts: stmt.int(3)))
        }
        return rows
    }

    public func count(_ table: String, where condition: String = "1") throws -> Int {
        let stmt = try database.prepare("SELECT count(*) FROM \(table) WHERE \(condition)")
        return try stmt.step() ? stmt.int(0) : 0
    }

    /// Queued rows not yet delivered.
    /// The fast path of a drain: like `nextBatch(after:limit:)`, but each record's stored UTF-8
    /// is appended to `body` (comma-separated) instead of becoming a String, and the rows carry
    /// an empty `json`. Bytes that are not plain ASCII go through the same UTF-8 repair as the
    /// String path, so the body is byte-identical to `RequestBuilder.locationBodyBytes`.
    /// `append` turns one record's (valid UTF-8) bytes into its upload bytes
    /// (`RequestBuilder.appendStoredRecord`: as stored, or with config extras merged).
    func nextBatch(after id: Int64, limit: Int?, appendingRecordsTo body: inout [UInt8],
                   using append: (UnsafeBufferPointer<UInt8>, inout [UInt8]) -> Void) throws -> [Row] {
        let stmt = try cached("SELECT id, uuid, json, attempts FROM queue WHERE id > ? ORDER BY id LIMIT ?")
        try stmt.bind([.integer(max(id, deliveredThrough)), .integer(Int64(limit ?? -1))])
        var rows: [Row] = []
        while try stmt.step() {
            if !rows.isEmpty { body.append(UInt8(ascii: ",")) }
            stmt.withUTF8(2) { bytes in
                guard let bytes else { return }
                if WorkingCopy.isASCII(bytes) {
                    append(bytes, &body)
                } else {
                    var repaired = String(decoding: bytes, as: UTF8.self)
                    repaired.withUTF8 { append($0, &body) }
                }
            }
            rows.append(Row(id: stmt.int64(0), uuid: stmt.text(1) ?? "", json: "", attempts: stmt.int(3)))
        }
        return rows
    }

    /// True when no byte has its high bit set (8 bytes per step: this runs over every record).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var bits: UInt64 = 0
        var i = 0
        while i + 8 <= bytes.count {
            bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            bits |= UInt64(base[i])
            i += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    public var remaining: Int { (try? count("queue", where: "id > \(deliveredThrough)")) ?? 0 }
    public var pendingLogs: Int { (try? count("log_entries", where: "uploaded = 0")) ?? 0 }

    // MARK: progress counters and auth

    /// Records delivered over every run of this working copy (from the journal, so a delivery
    /// costs no extra page write).
    public func deliveredTotal() throws -> Int {
        let stmt = try cached("SELECT coalesce(sum(count), 0) FROM journal WHERE lane = 'locations' AND outcome = 'delivered'")
        try stmt.bind([])
        let value = try stmt.step() ? stmt.int(0) : 0
        try stmt.bind([])
        return value
    }

    public func progress(_ key: String) throws -> Int64 {
        let stmt = try cached("SELECT value FROM progress WHERE key = ?")
        try stmt.bind([.text(key)])
        let value = try stmt.step() ? stmt.int64(0) : 0
        try stmt.bind([])  // reset: a cached statement must not hold a read transaction open
        return value
    }

    func setProgress(_ key: String, _ value: Int64) throws {
        try cached("INSERT OR REPLACE INTO progress(key, value) VALUES (?, ?)").run([.text(key), .integer(value)])
    }
}
