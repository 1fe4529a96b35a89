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
        var object: JSONObject = ["id": .int(r.rowId), "kind": .string(r.kind.rawValue), "createdAt": .from(r.createdAt)]
        if let attempts = r.attempts { object["attempts"] = .int(Int64(attempts)) }
        object["record"] = r.parsedJSON.map { redactor.redact($0) } ?? .string(redactor.redact(text: r.json))
        return .object(object)
    }
}
