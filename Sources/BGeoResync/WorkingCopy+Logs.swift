import BGeoForensics
import Foundation

/// The log lane and the quarantine listing.
extension WorkingCopy {
    // MARK: log lane

    public func nextLogBatch(limit: Int) throws -> [LogEntry] {
        let stmt = try cached("""
            SELECT id, ts, level, src, event, message, data FROM log_entries WHERE uploaded = 0 ORDER BY id LIMIT ?
            """)
        try stmt.bind([.integer(Int64(limit))])
        var entries: [LogEntry] = []
        while try stmt.step() {
            let ts = stmt.text(1) ?? ""
            entries.append(LogEntry(rowId: stmt.int64(0), tsText: ts, time: Timestamp.parse(ts) ?? 0, level: stmt.int(2),
                                    src: stmt.text(3) ?? "", event: stmt.text(4) ?? "", message: stmt.text(5),
                                    dataText: stmt.text(6), uploaded: false))
        }
        return entries
    }

    func markUploaded(_ entries: [LogEntry]) throws {
        let stmt = try cached("UPDATE log_entries SET uploaded = 1 WHERE id = ?")
        for entry in entries { try stmt.run([.integer(entry.rowId)]) }
    }

    // MARK: quarantine listing

    /// One quarantined record.
    public struct QuarantinedRecord: Sendable {
        public var rowId: Int64?
        public var uuid: String
        public var json: String
        public var status: Int
        public var response: String?
        public var reason: String
        public var at: String

        /// NDJSON line: the record as parsed JSON when it parses, else its text.
        public func json(redactor: Redactor) -> JSONValue {
            [
                "uuid": .string(uuid), "rowId": .from(rowId.map { Int($0) }), "status": .int(Int64(status)),
                "reason": .string(reason), "at": .string(at),
                "response": .from(response.map { redactor.redact(text: $0) }),
                "record": (try? JSONParser.parse(json)) ?? .string(json),
            ]
        }
    }

    public func quarantined() throws -> [QuarantinedRecord] {
        let stmt = try database.prepare("SELECT row_id, uuid, json, status, response, reason, at FROM quarantine ORDER BY id")
        var out: [QuarantinedRecord] = []
        while try stmt.step() {
            out.append(QuarantinedRecord(rowId: stmt.isNull(0) ? nil : stmt.int64(0), uuid: stmt.text(1) ?? "",
                                         json: stmt.text(2) ?? "", status: stmt.int(3), response: stmt.text(4),
                                         reason: stmt.text(5) ?? "", at: stmt.text(6) ?? ""))
        }
        return out
    }
}
