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
        return ["id": .int(e.rowId), "ts": .string(e.tsText), "level": .string(e.levelName), "src": .string(e.src),
                "event": .string(e.event), "message": e.message.map { .string(redactor.redact(text: $0)) } ?? .null,
                "data": data, "uploaded": .bool(e.uploaded)]
    }
}
