import BGeoReader

/// How a log row is shown in listings (`logs`).
public enum LogListing {
    public static let columns = ["id", "ts", "level", "src", "event", "message", "data", "uploaded"]

    /// `startBytes` (a table's `RowWriter.cellStartBytes`): a long JSON `data` cell may be given
    /// as the start of its redacted text, at least that long, when the table shows less of it.
    public static func cells(_ e: LogEntry, redactor: Redactor, startBytes: Int? = nil) -> [String] {
        let data = e.dataText.map { dataCell($0, redactor: redactor, startBytes: startBytes) } ?? ""
        return [String(e.rowId), e.tsText, e.levelName, e.src, e.event, redactor.redact(text: e.message ?? ""), data,
                e.uploaded ? "1" : "0"]
    }

    /// The `data` cell: the redacted JSON (`RedactedJSONText.text`), else the redacted text. With
    /// `startBytes`, a document four times longer is redacted only as far as that start
    /// (`RedactedJSONText.shown`, which still reads it all, so a text the parser refuses is shown
    /// as text as before): the whole redacted copy of a 60 MB row is not made to show 60 characters.
    static func dataCell(_ stored: String, redactor: Redactor, startBytes: Int?) -> String {
        if let startBytes, stored.utf8.count > 4 * startBytes,
           let shown = RedactedJSONText.shown(stored, redactor: redactor, bytes: startBytes),
           RowWriter.cutsAsWhole(shown.json, complete: shown.jsonComplete) {
            return shown.json
        }
        return RedactedJSONText.text(stored, redactor: redactor) ?? redactor.redact(text: stored)
    }

    public static func json(_ e: LogEntry, redactor: Redactor) -> JSONValue {
        let data: JSONValue = e.data.map { redactor.redact($0) } ?? e.dataText.map { .string(redactor.redact(text: $0)) } ?? .null
        return .object(JSONObject(members(e, redactor: redactor, data: data)))
    }

    /// `JSONWriter().string(json(e, redactor:))`, with the stored data redacted as it is read, or
    /// copied through when that gives back its own bytes (`RedactedJSONText.text`: no tree).
    public static func jsonText(_ e: LogEntry, redactor: Redactor, writer: JSONWriter) -> String {
        guard let stored = e.dataText else { return writer.string(json(e, redactor: redactor)) }
        guard let data = RedactedJSONText.text(stored, redactor: redactor) else { return writer.string(json(e, redactor: redactor)) }
        return writer.objectString(members(e, redactor: redactor, data: .null).map { member in
            (member.key, member.key == "data" ? .written(data) : .value(member.value))
        })
    }

    private static func members(_ e: LogEntry, redactor: Redactor, data: JSONValue) -> [(key: String, value: JSONValue)] {
        [("id", .int(e.rowId)), ("ts", .string(e.tsText)), ("level", .string(e.levelName)), ("src", .string(e.src)),
         ("event", .string(e.event)), ("message", e.message.map { .string(redactor.redact(text: $0)) } ?? .null),
         ("data", data), ("uploaded", .bool(e.uploaded))]
    }
}

extension LogListing {
    /// Streams the rows of `query` to `writer` in its format. In a JSON format a row is written
    /// from its cells, as bytes, when that gives exactly what `jsonText` would (`appendJSON`);
    /// any other row, every table or CSV row and every `--grep` read are built and written as
    /// `cells` / `jsonText` say.
    /// `pipe`: when a JSON listing is formatted on other connections (`pipedJSON`).
    public static func write(_ dump: Dump, query: LogQuery, redactor: Redactor, to writer: RowWriter,
                             pipe: ListingPipe = ListingPipe()) {
        let jsonWriter = JSONWriter()
        let piped = writer.writesJSON
            ? pipedJSON(dump, query: query, redactor: redactor, separators: writer.jsonRowSeparators, pipe: pipe) : nil
        guard case .readOn(let after) = writer.writeJSONRows(piped, standingInFor: dump) else { return }
        writer.listRows({ taker, built in dump.forEachLogEntry(query, after: after, takenFromCells: taker, built) },
                        cells: { cells($0, redactor: redactor, startBytes: writer.cellStartBytes) },
                        jsonText: { jsonText($0, redactor: redactor, writer: jsonWriter) },
                        bytes: { appendJSON($0, redactor: redactor, to: &$1) })
    }

    /// Appends `jsonText`'s bytes for `row` without building its entry, when it can: no message
    /// (a message is redacted as text), `ts`, `src` and `event` plain ASCII that needs no escape,
    /// and `data` NULL or copied through (`VerbatimJSON` form, nothing to redact). Returns false
    /// otherwise, the buffer then holding bytes the caller removes.
    static func appendJSON(_ row: LogRowView, redactor: Redactor, to out: inout [UInt8]) -> Bool {
        let stmt = row.stmt
        guard stmt.isNull(LogColumns.message) else { return false }
        out.append(contentsOf: #"{"id":"#.utf8)
        out.append(contentsOf: String(row.rowId).utf8)
        out.append(contentsOf: #","ts":"#.utf8)
        guard JSONBytes.appendPlainString(stmt, LogColumns.ts, to: &out) else { return false }
        out.append(contentsOf: #","level":""#.utf8)
        out.append(contentsOf: LogLevel.name(of: stmt.int(LogColumns.level)).utf8)
        out.append(contentsOf: #"","src":"#.utf8)
        guard JSONBytes.appendPlainString(stmt, LogColumns.src, to: &out) else { return false }
        out.append(contentsOf: #","event":"#.utf8)
        guard JSONBytes.appendPlainString(stmt, LogColumns.event, to: &out) else { return false }
        out.append(contentsOf: #","message":null,"data":"#.utf8)
        guard JSONBytes.appendStoredJSON(stmt, LogColumns.data, redactor: redactor, nullAllowed: true, to: &out) else { return false }
        out.append(contentsOf: stmt.int(LogColumns.uploaded) != 0 ? #","uploaded":true}"#.utf8 : #","uploaded":false}"#.utf8)
        return true
    }
}

extension LogListing {
    /// A JSON listing's rows formatted on other connections (`ScanRunner.piped`, the **in order**
    /// rule) in the query's order, as this thread's read would write them (`appendJSON`, else
    /// `jsonText`), with the format's separators; this thread writes the batches in order
    /// (`RowWriter.writeJSONRows`) and reads on itself where a row warned. Nil for a small log, a
    /// query that stops early (`limit`) or reads the text (`grep`), or one thread.
    static func pipedJSON(_ dump: Dump, query: LogQuery, redactor: Redactor, separators: RowWriter.JSONRowSeparators,
                          pipe: ListingPipe) -> PipedRead<UInt8>? {
        guard query.limit == nil, query.grep == nil, dump.layout.hasLog,
              var chunks = dump.rowChunks(of: "log_entries", minimumRows: pipe.minimumRows, size: pipe.chunkRows) else { return nil }
        if query.order == .newestFirst { chunks.reverse() }
        return ListingPipe.formatJSON(dump, chunks: chunks, separators: separators, read: { reader, rows, continuing, taker, built in
            reader.forEachLogEntry(query, rows: rows, continuing: continuing, takenFromCells: taker, built)
        }, bytes: { appendJSON($0, redactor: redactor, to: &$1) }, jsonText: { jsonText($0, redactor: redactor, writer: $1) })
    }
}
