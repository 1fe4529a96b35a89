import BGeoReader

/// How a queue record is shown in listings (`locations`): table/CSV columns and the JSON form.
public enum LocationListing {
    public static let columns = ["id", "uuid", "timestamp", "kind", "latitude", "longitude", "accuracy", "speed",
                                 "odometer", "is_moving", "event", "geofence"]

    public static func cells(_ r: QueueRecord, redactor: Redactor) -> [String] {
        func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
        let moving: String = r.isMoving.map { $0 ? "true" : "false" } ?? "null"
        let geofence: String = r.geofence.map { "\($0.identifier) \($0.action)" } ?? ""
        let cells: [String] = [String(r.rowId), r.uuid, r.timestampText, r.kind.rawValue, "\(r.latitude)", "\(r.longitude)",
                               text(r.accuracy), text(r.speed), text(r.odometer), moving, r.event ?? "", geofence]
        return cells.map { redactor.redact(text: $0) }
    }

    /// `{id, kind, createdAt, record}`: the stored record in full, secrets scrubbed.
    public static func json(_ r: QueueRecord, redactor: Redactor) -> JSONValue {
        .object(JSONObject(envelope(r) + [("record", r.parsedJSON.map { redactor.redact($0) } ?? .string(redactor.redact(text: r.json)))]))
    }

    /// `JSONWriter().string(json(r, redactor:))`, with the stored record redacted as it is read,
    /// or copied through when that gives back its own bytes (`RedactedJSONText.text`: no tree).
    public static func jsonText(_ r: QueueRecord, redactor: Redactor, writer: JSONWriter) -> String {
        guard let record = RedactedJSONText.text(r.json, redactor: redactor) else { return writer.string(json(r, redactor: redactor)) }
        return writer.objectString(envelope(r).map { ($0.key, .value($0.value)) } + [("record", .written(record))])
    }

    private static func envelope(_ r: QueueRecord) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [("id", .int(r.rowId)), ("kind", .string(r.kind.rawValue)),
                                                          ("createdAt", .from(r.createdAt))]
        if let attempts = r.attempts { members.append(("attempts", .int(Int64(attempts)))) }
        return members
    }
}

extension LocationListing {
    /// Streams the records of `query` to `writer` in its format. In a JSON format a record is
    /// written from its row's cells, as bytes, when that gives exactly what `jsonText` would
    /// (`appendJSON`); any other record and every table or CSV row are built and written as
    /// `cells` / `jsonText` say.
    /// `pipe`: when a JSON listing is formatted on other connections (`pipedJSON`).
    public static func write(_ dump: Dump, query: QueueQuery, redactor: Redactor, to writer: RowWriter,
                             pipe: ListingPipe = ListingPipe()) {
        let jsonWriter = JSONWriter()
        let piped = writer.writesJSON
            ? pipedJSON(dump, query: query, redactor: redactor, separators: writer.jsonRowSeparators, pipe: pipe) : nil
        guard case .readOn(let after) = writer.writeJSONRows(piped, standingInFor: dump) else { return }
        writer.listRows({ taker, built in dump.forEachRecord(query, after: after, takenFromRow: taker, built) },
                        cells: { cells($0, redactor: redactor) }, jsonText: { jsonText($0, redactor: redactor, writer: jsonWriter) },
                        bytes: { appendJSON($0, redactor: redactor, to: &$1) })
    }

    /// Appends `jsonText`'s bytes for a decoded row without building its record, when it can:
    /// `created_at` NULL or plain ASCII that needs no escape, and the record copied through
    /// (`VerbatimJSON` form, nothing to redact). Returns false otherwise, the buffer then holding
    /// bytes the caller removes.
    static func appendJSON(_ row: DecodedQueueRow, redactor: Redactor, to out: inout [UInt8]) -> Bool {
        let stmt = row.stmt
        out.append(contentsOf: #"{"id":"#.utf8)
        out.append(contentsOf: String(row.rowId).utf8)
        out.append(contentsOf: row.kind == .geofence ? #","kind":"geofence","createdAt":"#.utf8 : #","kind":"location","createdAt":"#.utf8)
        if stmt.isNull(QueueColumns.createdAt) {
            out.append(contentsOf: "null".utf8)
        } else {
            guard JSONBytes.appendPlainString(stmt, QueueColumns.createdAt, to: &out) else { return false }
        }
        if let attempts = row.cells.attempts {
            out.append(contentsOf: #","attempts":"#.utf8)
            out.append(contentsOf: String(attempts).utf8)
        }
        out.append(contentsOf: #","record":"#.utf8)
        guard JSONBytes.appendStoredJSON(stmt, QueueColumns.record, redactor: redactor, nullAllowed: false, to: &out) else { return false }
        out.append(0x7D)
        return true
    }
}

extension LocationListing {
    /// A JSON listing's rows formatted on other connections (`ScanRunner.piped`, the **in order**
    /// rule), as this thread's read would write them (`appendJSON`, else `jsonText`), with the
    /// format's separators; this thread writes the batches in order (`RowWriter.writeJSONRows`)
    /// and reads on itself where a row warned. Nil for a small queue, a query that stops early
    /// (`limit`) or needs the built record (`uuid`), or one thread.
    static func pipedJSON(_ dump: Dump, query: QueueQuery, redactor: Redactor, separators: RowWriter.JSONRowSeparators,
                          pipe: ListingPipe) -> PipedRead<UInt8>? {
        guard query.limit == nil, query.uuid == nil, let table = dump.layout.queueTable,
              let chunks = dump.rowChunks(of: table, minimumRows: pipe.minimumRows, size: pipe.chunkRows) else { return nil }
        return ListingPipe.formatJSON(dump, chunks: chunks, separators: separators, read: { reader, rows, continuing, taker, built in
            reader.forEachRecord(query, rows: rows, continuing: continuing, takenFromRow: taker, built)
        }, bytes: { appendJSON($0, redactor: redactor, to: &$1) }, jsonText: { jsonText($0, redactor: redactor, writer: $1) })
    }
}
