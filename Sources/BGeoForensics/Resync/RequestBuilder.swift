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

    /// The location request for `count` stored records whose UTF-8 is already comma-joined in
    /// `storedRecords` (see `storedRecordsFrame`); nil when the batch needs the general path.
    /// Same bytes as `locationRequest(_:accessToken:url:)` for the same records.
    public func locationRequest(storedRecords: [UInt8], count: Int, accessToken: String?, url: String? = nil) -> HTTPRequestSpec? {
        guard let frame = storedRecordsFrame(count: count) else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(frame.head.count + storedRecords.count + frame.tail.count)
        body.append(contentsOf: frame.head)
        body.append(contentsOf: storedRecords)
        body.append(contentsOf: frame.tail)
        return HTTPRequestSpec(method: settings.method, url: url ?? settings.url ?? "", headers: headers(accessToken: accessToken),
                               body: body)
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
        let texts = settings.extras.isEmpty ? records.map(\.json) : records.map(recordText)
        let frame = frame()
        var out: [UInt8] = []
        out.reserveCapacity(frame.head.count + texts.reduce(0) { $0 + $1.utf8.count + 1 } + frame.tail.count)
        out.append(contentsOf: frame.head)
        if settings.batchSync {
            for (index, text) in texts.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: text.utf8)
            }
        } else {
            out.append(contentsOf: (texts.first ?? "null").utf8)
        }
        out.append(contentsOf: frame.tail)
        return out
    }

    /// The bytes before and after the records when they are nested under a key: `{params…,"key":[`
    /// and `]}` (or without brackets when not batching).
    func frame() -> (head: [UInt8], tail: [UInt8]) {
        let writer = JSONWriter()
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
        return (Array(head.utf8), Array((settings.batchSync ? "]}" : "}").utf8))
    }

    /// The frame for a batch of stored records sent as they are (comma-joined, between head and
    /// tail), or nil when this batch needs the general path: extras to merge, a lone record
    /// merged into the root, or several records without batchSync.
    public func storedRecordsFrame(count: Int) -> (head: [UInt8], tail: [UInt8])? {
        guard settings.extras.isEmpty, count >= 1 else { return nil }
        if !settings.batchSync && (count != 1 || settings.rootProperty == ".") { return nil }
        return frame()
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
