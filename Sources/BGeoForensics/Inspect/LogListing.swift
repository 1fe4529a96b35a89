/// How a log row is shown in listings (`logs`).
public enum LogListing {
    public static let columns = ["id", "ts", "level", "src", "event", "message", "data", "uploaded"]

    public static func cells(_ e: LogEntry, redactor: Redactor) -> [String] {
        let data = e.data.map { redactor.redact($0).jsonText } ?? e.dataText.map { redactor.redact(text: $0) } ?? ""
        return [String(e.rowId), e.tsText, e.levelName, e.src, e.event, redactor.redact(text: e.message ?? ""), data,
                e.uploaded ? "1" : "0"]
    }

    public static func json(_ e: LogEntry, redactor: Redactor) -> JSONValue {
        let data: JSONValue = e.data.map { redactor.redact($0) } ?? e.dataText.map { .string(redactor.redact(text: $0)) } ?? .null
        return .object(JSONObject(members(e, redactor: redactor, data: data)))
    }

    /// `JSONWriter().string(json(e, redactor:))`, with the stored data copied through when parsing,
    /// redacting and writing it would give back its own bytes (`VerbatimJSON`).
    public static func jsonText(_ e: LogEntry, redactor: Redactor, writer: JSONWriter) -> String {
        guard let stored = e.dataText, redactor.copiesThrough(json: stored) else {
            return writer.string(json(e, redactor: redactor))
        }
        return writer.objectString(members(e, redactor: redactor, data: .null).map { member in
            (member.key, member.key == "data" ? .written(stored) : .value(member.value))
        })
    }

    private static func members(_ e: LogEntry, redactor: Redactor, data: JSONValue) -> [(key: String, value: JSONValue)] {
        [("id", .int(e.rowId)), ("ts", .string(e.tsText)), ("level", .string(e.levelName)), ("src", .string(e.src)),
         ("event", .string(e.event)), ("message", e.message.map { .string(redactor.redact(text: $0)) } ?? .null),
         ("data", data), ("uploaded", .bool(e.uploaded))]
    }
}
