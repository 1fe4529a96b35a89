/// Builds the SDK's requests, byte-compatible with the native uploader (HTTP upload guide):
/// body shaped by `httpRootProperty`, `batchSync`, `params` and `extras`; headers from the config;
/// `Authorization: Bearer <accessToken>` when authorization is configured. Pure: no I/O.
public struct RequestBuilder: Sendable {
    public var settings: ResyncSettings

    public init(settings: ResyncSettings) { self.settings = settings }

    /// One queued record: its uuid and its stored JSON text.
    public struct Record: Sendable, Equatable {
        public var uuid: String
        public var json: String
        public init(uuid: String, json: String) {
            self.uuid = uuid
            self.json = json
        }
    }

    /// The location request for `records` (oldest first). `url` overrides the settings' url.
    public func locationRequest(_ records: [Record], accessToken: String?, url: String? = nil) -> HTTPRequestSpec {
        HTTPRequestSpec(method: settings.method, url: url ?? settings.url ?? "", headers: headers(accessToken: accessToken),
                        body: locationBodyBytes(records))
    }

    /// Content-Type, then the config's headers (a config Content-Type or Authorization is replaced
    /// by ours), then the bearer token when there is one.
    public func headers(accessToken: String?) -> [HTTPHeader] {
        var list = [HTTPHeader("Content-Type", "application/json")]
        for header in settings.headers {
            let lowered = header.name.lowercased()
            if lowered == "content-type" { continue }
            if lowered == "authorization", accessToken != nil { continue }
            list.append(HTTPHeader(header.name, header.value))
        }
        if let accessToken { list.append(HTTPHeader("Authorization", "Bearer " + accessToken)) }
        return list
    }

    /// The body text. Records are sent as stored unless config extras must be merged in (then
    /// they are re-serialised in stored key order with int/real forms kept).
    public func locationBody(_ records: [Record]) -> String {
        String(decoding: locationBodyBytes(records), as: UTF8.self)
    }

    /// The body as bytes. The common case (no extras to merge, no lone record merged into the
    /// root) copies each stored record's UTF-8 straight into one buffer sized up front: a batch
    /// of 100 records used to cost more in String joining than in SQLite and the socket together.
    public func locationBodyBytes(_ records: [Record]) -> [UInt8] {
        let writer = JSONWriter()
        let merged = !settings.batchSync && records.count == 1 && settings.rootProperty == "."
        if merged, let object = (try? JSONParser.parse(recordText(records[0])))?.objectValue {
            // "." merges the lone record's fields into the root; params join the root without
            // overwriting the record's own fields.
            var root = object
            for member in settings.params where root[member.key] == nil { root[member.key] = member.value }
            return Array(writer.string(.object(root)).utf8)
        }
        // "." cannot hold an array: a batch nests under the default key instead.
        let key = settings.rootProperty == "." ? "location" : settings.rootProperty
        var head = "{"
        for member in settings.params where member.key != key {
            writer.writeString(member.key, into: &head)
            head += ":"
            writer.write(member.value, into: &head, indent: 0)
            head += ","
        }
        writer.writeString(key, into: &head)
        head += settings.batchSync ? ":[" : ":"
        let texts = settings.extras.isEmpty ? records.map(\.json) : records.map(recordText)
        var out: [UInt8] = []
        out.reserveCapacity(head.utf8.count + texts.reduce(0) { $0 + $1.utf8.count + 1 } + 2)
        out.append(contentsOf: head.utf8)
        if settings.batchSync {
            for (index, text) in texts.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: text.utf8)
            }
            out.append(UInt8(ascii: "]"))
        } else {
            out.append(contentsOf: (texts.first ?? "null").utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// A record's upload text: stored text when there are no config extras; otherwise config
    /// extras merged under the record's own (the record's keys win).
    public func recordText(_ record: Record) -> String {
        guard !settings.extras.isEmpty, case .object(var object)? = try? JSONParser.parse(record.json) else {
            return record.json
        }
        switch object["extras"] {
        case nil, .null?:
            object["extras"] = .object(settings.extras)
        case .object(let own)?:
            var combined = settings.extras
            for member in own { combined[member.key] = member.value }
            object["extras"] = .object(combined)
        default:
            return record.json  // extras of another type: leave the record untouched
        }
        return JSONWriter().string(.object(object))
    }

    /// The log lane: `{"events":[…]}` with level as its name, message/data only when present.
    public func logRequest(_ entries: [LogEntry], url: String, accessToken: String?) -> HTTPRequestSpec {
        HTTPRequestSpec(method: "POST", url: url, headers: headers(accessToken: accessToken),
                        body: Array(RequestBuilder.logBody(entries).utf8))
    }

    public static func logBody(_ entries: [LogEntry]) -> String {
        let events: [JSONValue] = entries.map { entry in
            var object: JSONObject = ["ts": .string(entry.tsText), "level": .string(entry.levelName),
                                      "src": .string(entry.src), "event": .string(entry.event)]
            if let message = entry.message { object["message"] = .string(message) }
            if let text = entry.dataText { object["data"] = (try? JSONParser.parse(text)) ?? .string(text) }
            return .object(object)
        }
        return JSONWriter().string(.object(["events": .array(events)]))
    }
}
