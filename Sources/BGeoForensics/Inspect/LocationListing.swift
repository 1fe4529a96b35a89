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

    /// `JSONWriter().string(json(r, redactor:))`, with the stored record copied through when
    /// parsing, redacting and writing it would give back its own bytes (`VerbatimJSON`).
    public static func jsonText(_ r: QueueRecord, redactor: Redactor, writer: JSONWriter) -> String {
        guard redactor.copiesThrough(json: r.json) else { return writer.string(json(r, redactor: redactor)) }
        return writer.objectString(envelope(r).map { ($0.key, .value($0.value)) } + [("record", .written(r.json))])
    }

    private static func envelope(_ r: QueueRecord) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [("id", .int(r.rowId)), ("kind", .string(r.kind.rawValue)),
                                                          ("createdAt", .from(r.createdAt))]
        if let attempts = r.attempts { members.append(("attempts", .int(Int64(attempts)))) }
        return members
    }
}
