import Foundation
import BGeoForensics
import BGeoSQLite

/// State transitions (each caller wraps them in one transaction) and the request journal.
extension WorkingCopy {
    // MARK: transitions (each caller wraps them in one transaction)

    /// Like `Database.transaction`, with BEGIN/COMMIT prepared once instead of compiled per request.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try cached("BEGIN IMMEDIATE").run()
        pendingDeliveredThrough = nil
        journaledRow = nil
        defer { journaledRow = nil }
        do {
            let value = try body()
            try cached("COMMIT").run()
            if let pending = pendingDeliveredThrough { deliveredThrough = pending }
            pendingDeliveredThrough = nil
            return value
        } catch {
            pendingDeliveredThrough = nil
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    func quarantine(_ rows: [Row], status: Int, response: String?, reason: String) throws {
        // The record text is copied from the queue row itself: a batch prepared as bytes
        // (`nextBatch(after:limit:appendingRecordsTo:)`) carries no text in its rows.
        let stmt = try cached("""
            INSERT INTO quarantine(row_id, uuid, json, status, response, reason, at)
            SELECT id, uuid, json, ?, ?, ?, ? FROM queue WHERE id = ?
            """)
        let now = Timestamp.format(Date().timeIntervalSince1970)
        for row in rows {
            try stmt.run([.integer(Int64(status)), response.map { .text($0) } ?? .null, .text(reason), .text(now), .integer(row.id)])
            guard database.changes == 1 else {
                throw Mismatch(description: "queue row \(row.id) (\(row.uuid)) vanished before its quarantine; nothing was committed")
            }
        }
        // Row by row: quarantined rows may be any subset of a batch (LongPing's attempt limit).
        let delete = try cached("DELETE FROM queue WHERE id = ?")
        for row in rows { try delete.run([.integer(row.id)]) }
    }

    func setAttempts(_ row: Row, _ attempts: Int) throws {
        try cached("UPDATE queue SET attempts = ? WHERE id = ?").run([.integer(Int64(attempts)), .integer(row.id)])
    }

    /// One journal line, like the SDK's onHttp plus the request itself.
    public struct JournalEntry: Sendable {
        public var lane: String
        public var request: HTTPRequestSpec
        public var uuids: [String]
        public var status: Int
        public var response: String?
        public var ms: Int
        public var attempt: Int
        public var outcome: String
        /// The body's SHA-256 when already computed (the engine hashes it while awaiting the response).
        public var requestSHA256: String? = nil
        /// `uuids` as JSON when already written (also prepared while awaiting the response).
        public var uuidsJSON: String? = nil
        /// Why there was no response (`kind: sentence`), for status 0.
        public var error: String? = nil
        /// A 3xx's `Location`, as sent (never followed).
        public var location: String? = nil
    }

    /// Same text as `JSONValue.array(strings.map { .string($0) }).jsonText`, written as bytes:
    /// uuids almost never need escaping, and String appends per uuid cost more than the insert.
    static func jsonArray(_ strings: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(strings.reduce(2) { $0 + $1.utf8.count + 3 })
        let writer = JSONWriter()
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
                var escaped = ""
                writer.writeString(string, into: &escaped)
                out.append(contentsOf: escaped.utf8)
            } else {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: string.utf8)
                out.append(UInt8(ascii: "\""))
            }
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `storeBody`: the request text itself (kept for failed requests, to diagnose them; a
    /// delivered request keeps its size and SHA-256 — its records are still in the evidence).
    func journal(_ entry: JournalEntry, redactor: Redactor, storeBody: Bool = true) throws {
        let stmt = try cached("""
            INSERT INTO journal(at, lane, method, url, uuids, count, headers, request, bytes, request_sha256, status, response,
                                ms, attempt, outcome, error, location)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let headers: String
        if let last = journaledHeaders, last.headers == entry.request.headers, last.redactor.redactsLike(redactor) {
            headers = last.text
        } else {
            headers = entry.request.redactedHeaders(redactor).jsonText
            journaledHeaders = (entry.request.headers, redactor, headers)
        }
        let uuids = entry.uuidsJSON ?? WorkingCopy.jsonArray(entry.uuids)
        try stmt.run([
            .text(Timestamp.format(Date().timeIntervalSince1970)), .text(entry.lane), .text(entry.request.method),
            .text(entry.request.url), .text(uuids),
            .integer(Int64(entry.uuids.count)), .text(headers),
            storeBody ? .text(entry.request.bodyText) : .null, .integer(Int64(entry.request.body.count)),
            .text(entry.requestSHA256 ?? SHA256Hasher.hex(bytes: entry.request.body)),
            .integer(Int64(entry.status)), entry.response.map { .text(String($0.prefix(1024))) } ?? .null,
            .integer(Int64(entry.ms)), .integer(Int64(entry.attempt)), .text(entry.outcome),
            entry.error.map { .text(redactor.redact(text: $0)) } ?? .null,
            entry.location.map { .text(redactor.redact(text: $0)) } ?? .null,
        ])
        journaledRow = database.lastInsertRowID
    }
}
